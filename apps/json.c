/* json.c -- JSON output helpers (json.h). */
#include "json.h"

#include <math.h>
#include <stdlib.h>

void cli_json_begin(FILE *f)
{
    fprintf(f, "{\"schema\": %d", CLI_JSON_SCHEMA);
}

void cli_json_string(FILE *f, const char *s)
{
    fputc('"', f);
    for (; s && *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\')
            fprintf(f, "\\%c", c);
        else if (c == '\n')
            fputs("\\n", f);
        else if (c < 0x20)
            fprintf(f, "\\u%04x", c);
        else
            fputc(c, f);
    }
    fputc('"', f);
}

/* The shortest of %.15g, %.16g and %.17g that reads back as v (17 digits
 * always do): 0.1 as 0.1, not 0.10000000000000001; every value exact. */
void cli_json_number(FILE *f, double v)
{
    if (!isfinite(v)) {
        fputs("null", f);
        return;
    }
    char buf[40];
    for (int digits = 15; digits <= 17; digits++) {
        snprintf(buf, sizeof buf, "%.*g", digits, v);
        for (char *c = buf; *c; c++)
            if (*c == ',') *c = '.'; /* a locale with a decimal comma */
        if (digits == 17 || strtod(buf, NULL) == v) break;
    }
    fputs(buf, f);
}

void cli_json_field(FILE *f, const char *key, double v)
{
    fprintf(f, ", \"%s\": ", key);
    cli_json_number(f, v);
}
