/* json.h -- JSON output helpers shared by the subcommands. */
#ifndef SPK_APPS_JSON_H
#define SPK_APPS_JSON_H

#include <stdio.h>

/* The version of every JSON object spk prints ("schema", its first key):
 * raised when a key changes meaning or is removed (not when one is added). */
#define CLI_JSON_SCHEMA 1

/* Open a JSON object with its first key: '{"schema": CLI_JSON_SCHEMA'. */
void cli_json_begin(FILE *f);

/* Write s as a JSON string literal (quotes and escapes included). */
void cli_json_string(FILE *f, const char *s);
/* Write a double as JSON (null for NaN/Inf). */
void cli_json_number(FILE *f, double v);
/* Write ', "key": v' (null for NaN/Inf). */
void cli_json_field(FILE *f, const char *key, double v);

#endif
