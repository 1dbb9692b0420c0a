/* cli.c -- usage errors, and the subcommands' options parsed, checked and
 * described through the option tables (cli.h). */
#include "cli.h"

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include "io/gen_complex.h"
#include "io/mmio.h"
#include "solver/options.h"
#include "spk.h"

int cli_usage_error(const char *cmd, const char *fmt, ...)
{
    va_list ap;
    fprintf(stderr, "spk %s: ", cmd);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fprintf(stderr, "\nTry 'spk %s --help'.\n", cmd);
    return CLI_USAGE;
}

int cli_flag(const char *arg, const char *name)
{
    return strncmp(arg, "--", 2) == 0 && strcmp(arg + 2, name) == 0;
}

int cli_is_help(const char *arg)
{
    return cli_flag(arg, "help") || strcmp(arg, "-h") == 0;
}

const spk_opt_name cli_device_names[] = {
    {"auto", SPK_DEVICE_AUTO}, {"cpu", SPK_DEVICE_HOST}, {"host", SPK_DEVICE_HOST},
    {"cuda", SPK_DEVICE_CUDA}, {"gpu", SPK_DEVICE_CUDA},   {NULL, 0}};
const spk_opt_name cli_solver_names[] = {
    {"auto", SPK_SOLVER_AUTO}, {"cg", SPK_SOLVER_CG}, {"bicgstab", SPK_SOLVER_BICGSTAB},
    {"gmres", SPK_SOLVER_GMRES}, {"cocg", SPK_SOLVER_COCG}, {NULL, 0}};
const spk_opt_name cli_precond_names[] = {
    {"auto", SPK_PRECOND_AUTO}, {"factor", SPK_PRECOND_FACTOR}, {"ic0", SPK_PRECOND_IC0},
    {"ilu0", SPK_PRECOND_ILU0}, {"jacobi", SPK_PRECOND_JACOBI}, {"none", SPK_PRECOND_NONE}, {NULL, 0}};

enum { MAX_TABLES = 32, WIDTH = 100, INDENT = 22 };

/* Is name one of the comma-separated list? */
static int in_list(const char *list, const char *name)
{
    const size_t n = strlen(name);
    for (const char *p = list; p && (p = strstr(p, name)) != NULL; p += n)
        if ((p == list || p[-1] == ',') && (p[n] == ',' || p[n] == '\0')) return 1;
    return 0;
}

/* The library's tables of p's components, NULL-terminated, after the
 * command's own table when own is set. */
static void tables_of(const cli_parser *p, int own, const spk_opt_table **t)
{
    const spk_opt_table *all[MAX_TABLES];
    int n = 0;
    if (own && p->own) t[n++] = p->own;
    if (p->o) {
        spk_options_tables(all, MAX_TABLES);
        for (int k = 0; all[k]; k++)
            if (in_list(p->owners, all[k]->owner)) t[n++] = all[k];
    }
    t[n] = NULL;
}

/* The option named name (n characters): the command's own, else the
 * library's (*lib set); "no-SWITCH" (*off set) names a switch. */
static const spk_opt *find(const cli_parser *p, const char *name, size_t n, int *lib, int *off)
{
    const spk_opt_table *own[2] = {p->own, NULL}, *t[MAX_TABLES + 1];
    tables_of(p, 0, t);
    *off = 0;
    for (int pass = 0; pass < 2; pass++) {
        const spk_opt *o = spk_opt_find(own, name, n, NULL);
        *lib = !o;
        if (!o) o = spk_opt_find(t, name, n, NULL);
        if (pass == 1 && o && o->type != SPK_OPT_FLAG) o = NULL;
        if (o || pass == 1 || n <= 3 || strncmp(name, "no-", 3) != 0) return o;
        name += 3, n -= 3, *off = 1;
    }
    return NULL;
}

int cli_parse_option(cli_parser *p, int argc, char **argv, int *i)
{
    const char *a = argv[*i];
    if (a[0] != '-' || a[1] == '\0') return 0;
    if (a[1] != '-' || a[2] == '\0') return cli_usage_error(p->cmd, "unknown option '%s'", a);
    const char *name = a + 2, *eq = strchr(name, '=');
    const size_t n = eq ? (size_t)(eq - name) : strlen(name);
    int lib = 0, off = 0;
    const spk_opt *o = find(p, name, n, &lib, &off);
    spk_err e;
    spk_err_clear(&e);
    if (!o || (off && eq)) {
        const spk_opt_table *t[MAX_TABLES + 2];
        tables_of(p, 1, t);
        spk_opt_unknown(t, "--", name, n, 0, &e);
        return cli_usage_error(p->cmd, "%s", e.msg);
    }
    const char *text = eq ? eq + 1 : NULL;
    if (off)
        text = "off";
    else if (!eq && o->type != SPK_OPT_FLAG && *i + 1 < argc)
        text = argv[++*i];
    char label[80];
    snprintf(label, sizeof label, "--%s", o->key);
    /* on the command line an empty name is a mistake (an unset shell variable), not the
     * library's "unset, the default" */
    if (o->type == SPK_OPT_STRING && text && !*text)
        return cli_usage_error(p->cmd, "%s needs a name, not an empty value", label);
    spk_opt_value v;
    if (spk_opt_parse(o, text, label, &v, &e)) return cli_usage_error(p->cmd, "%s", e.msg);
    spk_opt_store(o, SPK_OPT_PUBLIC, lib ? (void *)p->o : p->args, &v);
    p->last = o;
    if (lib && !cli_given(p, o->key) && p->ngiven < (int)(sizeof p->given / sizeof p->given[0]))
        p->given[p->ngiven++] = o;
    return 1;
}

int cli_parse_args(cli_parser *p, int argc, char **argv, int (*each)(cli_parser *p, const char *word, void *arg),
                   void *arg)
{
    for (int i = 1; i < argc; i++) {
        if (cli_is_help(argv[i])) return CLI_HELP;
        const int r = cli_parse_option(p, argc, argv, &i);
        if (r == CLI_USAGE) return CLI_USAGE;
        if (each(p, r ? NULL : argv[i], arg)) return CLI_USAGE;
    }
    return CLI_OK;
}

int cli_parse_bytes(const char *cmd, const char *text, size_t *out)
{
    *out = 0;
    if (!text) return CLI_OK;
    char *end = NULL;
    errno = 0;
    const double v = strtod(text, &end);
    double mul = 1;
    if (end && (*end == 'k' || *end == 'K')) mul = 1024.0, end++;
    else if (end && (*end == 'm' || *end == 'M')) mul = 1024.0 * 1024, end++;
    else if (end && (*end == 'g' || *end == 'G')) mul = 1024.0 * 1024 * 1024, end++;
    else if (end && (*end == 't' || *end == 'T')) mul = 1024.0 * 1024 * 1024 * 1024, end++;
    if (end && (*end == 'b' || *end == 'B')) end++;
    const double bytes = v * mul;
    if (end == text || !end || *end || errno || !(bytes >= 1) || bytes > 1.8e19)
        return cli_usage_error(cmd, "--max-memory needs a size such as 4G, 512M or 1000000 (bytes; got '%s')", text);
    *out = (size_t)bytes;
    return CLI_OK;
}

int cli_given(const cli_parser *p, const char *key)
{
    for (int k = 0; k < p->ngiven; k++)
        if (strcmp(p->given[k]->key, key) == 0) return 1;
    return 0;
}

int cli_check_options(const cli_parser *p)
{
    spk_err e;
    spk_err_clear(&e);
    if (p->o && spk_options_validate(p->o, NULL, &e)) return cli_usage_error(p->cmd, "%s", e.msg);
    return CLI_OK;
}

/* "  LEFT  TEXT" with TEXT wrapped at WIDTH columns, INDENT in. */
static void print_wrapped(const char *left, const char *text)
{
    int col = printf("  %s", left);
    if (col >= INDENT - 1) {
        printf("\n");
        col = 0;
    }
    printf("%*s", INDENT - col, "");
    col = INDENT;
    while (*text) {
        size_t w = strcspn(text, " ");
        if (col > INDENT && col + 1 + (int)w > WIDTH) {
            printf("\n%*s", INDENT, "");
            col = INDENT;
        } else if (col > INDENT) {
            putchar(' ');
            col++;
        }
        printf("%.*s", (int)w, text);
        col += (int)w;
        text += w;
        while (*text == ' ') text++;
    }
    putchar('\n');
}

static void print_option(const spk_opt *o)
{
    char left[80], text[1536];
    if (o->type == SPK_OPT_FLAG && o->def)
        snprintf(left, sizeof left, "--%s, --no-%s", o->key, o->key);
    else if (o->type == SPK_OPT_FLAG)
        snprintf(left, sizeof left, "--%s", o->key);
    else
        snprintf(left, sizeof left, "--%s %s", o->key, o->meta ? o->meta : "X");
    spk_opt_describe(o, text, sizeof text);
    print_wrapped(left, text);
}

void cli_print_options(const cli_parser *p)
{
    static const char *const titles[][2] = {
        {"solver", "solver options"},
        {"precond", "preconditioner options"},
        {"spmv", "format options (0: the format's own choice)"},
    };
    for (int k = 0; p->own && k < p->own->n; k++) print_option(&p->own->opts[k]);
    const spk_opt_table *t[MAX_TABLES + 1];
    tables_of(p, 0, t);
    const char *shown = "";
    for (int k = 0; t[k]; k++) {
        if (strcmp(shown, t[k]->owner) != 0) {
            const char *title = t[k]->owner;
            for (size_t j = 0; j < sizeof titles / sizeof titles[0]; j++)
                if (strcmp(titles[j][0], t[k]->owner) == 0) title = titles[j][1];
            printf("\n%s:\n", title);
            shown = t[k]->owner;
        }
        for (int j = 0; j < t[k]->n; j++) print_option(&t[k]->opts[j]);
    }
}

const char *cli_option_text(const spk_options *o, const char *key, char *buf, size_t len)
{
    if (spk_options_get(o, key, buf, len) != SPK_OK && len) buf[0] = '\0';
    return buf;
}

int cli_mpi_ranks(void)
{
    const char *off = getenv("SPK_MPI");
    if (off && strcmp(off, "0") == 0) return 0;
    const char *vars[] = {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_SIZE", "MPI_LOCALNRANKS"};
    for (size_t k = 0; k < sizeof vars / sizeof *vars; k++) {
        const char *v = getenv(vars[k]);
        if (v && atoi(v) > 0) return atoi(v);
    }
    return 0;
}

/* Does s end with suf, ignoring case? */
static int ends_with(const char *s, const char *suf)
{
    const size_t a = strlen(s), b = strlen(suf);
    return a >= b && strcasecmp(s + a - b, suf) == 0;
}

int cli_complex_input(const char *cmd, const char *name)
{
    if (strncmp(name, "gen:", 4) == 0) {
        if (!spk_gen_spec_is_complex(name + 4)) return 0;
    } else {
        struct stat st;
        spk_mm_field f = SPK_MM_REAL;
        spk_err e;
        spk_err_clear(&e);
        /* a regular file only: peeking into a pipe would take its header */
        if (stat(name, &st) != 0 || !S_ISREG(st.st_mode) || spk_mm_peek_field(name, &f, &e) || f != SPK_MM_COMPLEX)
            return 0;
    }
    fprintf(stderr, "spk %s: %s: a complex matrix; %s works on real ones (spk solve in one process and spk info "
                    "take complex systems)\n", cmd, name, cmd);
    return 1;
}

int cli_check_mtx_name(const char *cmd, const char *path)
{
    struct stat st;
    if (ends_with(path, ".mtx") || ends_with(path, ".mtx.gz")) return CLI_OK;
    if (stat(path, &st) == 0 && (S_ISCHR(st.st_mode) || S_ISFIFO(st.st_mode))) return CLI_OK;
    return cli_usage_error(cmd, "%s: the output name must end in .mtx or .mtx.gz (spk %s writes Matrix Market "
                                "only)", path, cmd);
}
