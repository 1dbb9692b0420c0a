/* options.h -- the engine behind spk's option tables.
 *
 * An option is a key ("rtol", "maxit") with a type, a range, a default and
 * a line of help, stored by offset into a struct.  Each component declares
 * the keys it reads as an spk_opt_table next to the code that reads them;
 * this engine parses and checks values, stores and loads them, and writes
 * their help and their error messages.  It knows no particular option.
 *
 * A key is stored in two views: SPK_OPT_PUBLIC, the struct a front end fills
 * (spk_options for the library's keys), and SPK_OPT_OWN, the struct its
 * component reads (spk_spmv_opts for a format's knobs).  A key read where it
 * is filled has the same offset in both. */
#ifndef SPK_CORE_OPTIONS_H
#define SPK_CORE_OPTIONS_H

#include <stddef.h>

#include "core/error.h"

typedef enum spk_opt_type {
    SPK_OPT_INT,    /* int */
    SPK_OPT_LLONG,  /* long long */
    SPK_OPT_DOUBLE, /* double, always finite */
    SPK_OPT_ENUM,   /* int, one of the names' values (given by name or by value) */
    SPK_OPT_FLAG,   /* int, 0 or 1 (on/off, true/false, yes/no, 1/0) */
    SPK_OPT_STRING  /* const char *: a name from the key's lookup, or the caller's string */
} spk_opt_type;

enum { SPK_OPT_PUBLIC = 0, SPK_OPT_OWN = 1 };

/* flags: the ends of [min, max] left out */
enum { SPK_OPT_MIN_OPEN = 1, SPK_OPT_MAX_OPEN = 2 };

typedef struct spk_opt_name {
    const char *name;
    int value;
} spk_opt_name;

typedef struct spk_opt {
    const char *key;        /* "vector-ops": --vector-ops on the command line, spk_options_set's key */
    const char *field;      /* the struct member's name ("vector_ops"), for messages about a struct */
    spk_opt_type type;
    size_t at[2];           /* offset of the value in the SPK_OPT_PUBLIC and SPK_OPT_OWN structs */
    double min, max;        /* INT, LLONG, DOUBLE: the range (-/+INFINITY: no bound) */
    unsigned flags;         /* SPK_OPT_MIN_OPEN, SPK_OPT_MAX_OPEN */
    double def;             /* the default (STRING: NULL) */
    const spk_opt_name *names; /* ENUM: every name; INT: values spelled by name ("auto" = -1);
                                  ended by {NULL, 0} */
    const char *unset;      /* 0 (STRING: NULL, given as "") is accepted too and leaves the choice
                               to the reader, whose choice this says ("32"); NULL: 0 only where in
                               range */
    const char *meta;       /* the value's placeholder in --help ("C") */
    const char *help;       /* what it does, in a sentence */
    const char *scope;      /* what reads it, comma-separated (formats: "ell,hyb"); NULL: all */
    const char *alias;      /* another key accepted for it, or NULL */
    /* STRING: the stored string for name (static), NULL when unknown; with
     * name NULL, the accepted names in alts.  NULL: the caller's string is
     * stored as given. */
    const char *(*lookup)(const char *name, char *alts, size_t len);
} spk_opt;

typedef struct spk_opt_table {
    const char *owner;      /* "solver", "precond", "spmv" */
    const spk_opt *opts;
    int n;
    /* combinations of its keys, in the SPK_OPT_OWN struct (NULL: none) */
    int (*check)(const void *own, spk_err *e);
} spk_opt_table;

/* A value of any type. */
typedef struct spk_opt_value {
    long long i;            /* INT, LLONG, ENUM, FLAG */
    double d;               /* DOUBLE */
    const char *s;          /* STRING */
} spk_opt_value;

/* Bytes the value takes in its struct. */
size_t spk_opt_size(const spk_opt *o);
/* Does key (n characters; '_' and '-' alike) name o, by its key or alias? */
int spk_opt_is(const spk_opt *o, const char *key, size_t n);
/* The option named key (n characters) in the NULL-terminated tables t
 * (*tab: its table, may be NULL); NULL when none. */
const spk_opt *spk_opt_find(const spk_opt_table *const *t, const char *key, size_t n, const spk_opt_table **tab);
/* The message for key, unknown in t: "unknown option 'PRE KEY'", the close
 * keys, and (all != 0) every key when none is close.  Returns SPK_ERR_NOT_FOUND. */
int spk_opt_unknown(const spk_opt_table *const *t, const char *pre, const char *key, size_t n, int all,
                    spk_err *e);

/* Parse text (NULL: the key given alone, a switch's "on") into v and check
 * its range; label names the option in the message ("--rtol"). */
int spk_opt_parse(const spk_opt *o, const char *text, const char *label, spk_opt_value *v, spk_err *e);
/* Check a value already stored (STRING: not checked). */
int spk_opt_check(const spk_opt *o, const spk_opt_value *v, const char *label, spk_err *e);
void spk_opt_load(const spk_opt *o, int view, const void *base, spk_opt_value *v);
void spk_opt_store(const spk_opt *o, int view, void *base, const spk_opt_value *v);
void spk_opt_default(const spk_opt *o, spk_opt_value *v);

/* The value as text, in the form spk_opt_parse reads back. */
void spk_opt_text(const spk_opt *o, const spk_opt_value *v, char *buf, size_t len);
/* The accepted values, e.g. "a number in [0, 1)", "one of none, multicolor". */
void spk_opt_range(const spk_opt *o, char *buf, size_t len);
/* The default as --help shows it ("1e-8", "32" for an unset 0). */
void spk_opt_default_text(const spk_opt *o, char *buf, size_t len);
/* One line of help: "HELP (RANGE; default DEFAULT)". */
void spk_opt_describe(const spk_opt *o, char *buf, size_t len);

/* Every key of t at its default, in view. */
void spk_opt_defaults(const spk_opt_table *t, int view, void *base);
/* Every key of t from one view of src to another of dst. */
void spk_opt_copy(const spk_opt_table *t, int from, const void *src, int to, void *dst);
/* Every stored value of t in its range (t->check, the combinations, is the
 * caller's to run on the struct it reads); messages name the fields with
 * prefix pre ("spk_options.") and the keys, or (pre NULL or "") the keys. */
int spk_opt_validate(const spk_opt_table *t, int view, const void *base, const char *pre, spk_err *e);

/* Set key (n characters) to text in the tables' view of base; "no-KEY"
 * alone turns a switch off.  pre goes in front of keys in messages ("--"). */
int spk_opt_set(const spk_opt_table *const *t, int view, void *base, const char *key, size_t n,
                const char *text, const char *pre, spk_err *e);
/* "key=value, key=value, ..." (a switch alone means on) into base. */
int spk_opt_parse_list(const spk_opt_table *const *t, int view, void *base, const char *config,
                       const char *pre, spk_err *e);

#endif
