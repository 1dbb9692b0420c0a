/* cmd_convert.c -- `spk convert IN OUT`: rewrite a Matrix Market file
 * (compress with .gz, expand symmetric storage, or fold a symmetric matrix),
 * keeping the comment lines of its header. */
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"
#include "core/csr.h"
#include "core/zcsr.h"
#include "io/mmio.h"

static void help(void)
{
    printf("usage: spk convert IN.mtx[.gz] OUT.mtx[.gz] [--symmetric | --general]\n"
           "\n"
           "Read IN and write it again as Matrix Market: OUT must end in .mtx or .mtx.gz\n"
           "(or be a device or FIFO, written as it is); .gz is compressed.  By default a\n"
           "matrix whose values are symmetric is stored 'symmetric' (lower triangle);\n"
           "--general stores both triangles; --symmetric fails when A is not symmetric.\n"
           "Values are written with 17 significant digits (exact round trip).  The comment\n"
           "lines after IN's banner are kept, after OUT's (the first 64 KiB of them; a\n"
           "comment line says how many were left out beyond).  A complex matrix is\n"
           "stored 'symmetric' or 'hermitian' by the same rule (its comment lines are not\n"
           "kept).\n");
}

/* A complex file (mode as cmd_convert's): stored symmetric or hermitian where
 * its values are, else general. */
static int convert_complex(const char *in, const char *outp, int mode)
{
    spk_err e;
    spk_err_clear(&e);
    spk_zcsr Z = {0};
    int st = spk_mm_read_zcsr(in, 0, &Z, NULL, &e);
    const spk_zsym sym = st ? SPK_ZSYM_GENERAL : spk_zcsr_symmetry(&Z);
    const int how = mode == 2 ? 0 : (sym & SPK_ZSYM_SYMMETRIC) ? 1 : sym == SPK_ZSYM_HERMITIAN ? 2 : 0;
    if (!st && mode == 1 && how == 0)
        st = spk_err_set(&e, SPK_ERR_INVALID_MATRIX, "%s: --symmetric, but the complex matrix is neither symmetric "
                         "nor Hermitian", in);
    if (!st) st = spk_mm_write_zcsr(outp, &Z, how, "converted by spk convert (the input's comment lines not kept)", &e);
    if (st) fprintf(stderr, "spk convert: %s\n", e.msg);
    spk_zcsr_free(&Z);
    return st ? CLI_FAIL : CLI_OK;
}

int cmd_convert(int argc, char **argv)
{
    const char *in = NULL, *outp = NULL;
    int mode = 0; /* 0 auto, 1 symmetric, 2 general */
    for (int i = 1; i < argc; i++) {
        if (cli_flag(argv[i], "help") || strcmp(argv[i], "-h") == 0) {
            help();
            return CLI_OK;
        } else if (cli_flag(argv[i], "symmetric")) {
            mode = 1;
        } else if (cli_flag(argv[i], "general")) {
            mode = 2;
        } else if (argv[i][0] == '-' && argv[i][1] != '\0') {
            return cli_usage_error("convert", "unknown option '%s'", argv[i]);
        } else if (!in) {
            in = argv[i];
        } else if (!outp) {
            outp = argv[i];
        } else {
            return cli_usage_error("convert", "unexpected argument '%s'", argv[i]);
        }
    }
    if (!in || !outp) return cli_usage_error("convert", "need an input and an output file");
    if (cli_check_mtx_name("convert", outp)) return CLI_USAGE;
    spk_mm_field field = SPK_MM_REAL;
    spk_err pe;
    spk_err_clear(&pe);
    struct stat sb; /* a regular file's header only: peeking into a pipe would take it */
    if (stat(in, &sb) == 0 && S_ISREG(sb.st_mode) && spk_mm_peek_field(in, &field, &pe) == SPK_OK &&
        field == SPK_MM_COMPLEX)
        return convert_complex(in, outp, mode);
    spk_err e;
    spk_err_clear(&e);
    spk_csr A = {0};
    spk_mm_info info;
    spk_mm_comments com;
    int sym = 0, st = spk_mm_read_csr_comments(in, 0, &A, &info, &com, &e);
    if (!st && info.warnings)
        fprintf(stderr, "spk convert: warning: %s%s\n", info.warning, info.warnings > 1 ? " (and more such notes)" : "");
    if (!st && mode != 2) st = spk_csr_symmetry(&A, 0.0, NULL, &sym, &e);
    if (!st && mode == 1 && !sym)
        st = spk_err_set(&e, SPK_ERR_INVALID_MATRIX, "%s: --symmetric, but the matrix is not symmetric", in);
    char note[160] = "converted by spk convert";
    if (!st && com.dropped) {
        snprintf(note + strlen(note), sizeof note - strlen(note),
                 "\n%lld of the %lld comment lines of the input left out (the first %d KiB of them kept)",
                 com.dropped, com.lines, SPK_MM_COMMENTS_MAX / 1024);
        fprintf(stderr, "spk convert: %s: %lld of %lld comment lines left out (more than %d KiB)\n", in,
                com.dropped, com.lines, SPK_MM_COMMENTS_MAX / 1024);
    }
    if (!st) st = spk_mm_write_csr_lines(outp, &A, sym, com.text, note, &e);
    if (st) fprintf(stderr, "spk convert: %s\n", e.msg);
    spk_mm_comments_free(&com);
    spk_csr_free(&A);
    return st ? CLI_FAIL : CLI_OK;
}
