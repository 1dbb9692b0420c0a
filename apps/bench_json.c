/* bench_json.c -- `spk bench`'s files: everything as JSON (for
 * scripts/bench_plots.py) and one CSV row per matrix and format, each
 * written whole, then renamed into place. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench.h"
#include "cli.h"
#include "io/mmio.h"

static int report_close(bench *b, FILE *f, char **mem, size_t *len, const char *path)
{
    int st = fclose(f) != 0 ? spk_err_set(&b->err, SPK_ERR_NOMEM, "out of host memory (report)")
                            : spk_write_file(path, *mem, *len, &b->err);
    free(*mem);
    *mem = NULL;
    return st;
}

/* The run: version, date, command, device, settings, the configurations, the floors. */
static void json_run(const bench *b, FILE *f, int argc, char **argv)
{
    char date[32];
    time_t now = time(NULL);
    strftime(date, sizeof date, "%Y-%m-%d %H:%M UTC", gmtime(&now));
    cli_json_begin(f);
    fprintf(f, ", \"spk_version\": \"%s\", \"date\": \"%s\", \"command\": ", spk_version(), date);
    char cmd[2048] = "spk bench", v[3][32];
    size_t used = strlen(cmd);
    for (int i = 1; i < argc && used < sizeof cmd; i++) {
        int w = snprintf(cmd + used, sizeof cmd - used, " %s", argv[i]);
        if (w > 0) used += (size_t)w;
    }
    cli_json_string(f, cmd);
    fprintf(f, ", \"device\": ");
    cli_json_string(f, b->devname);
    fprintf(f, ", \"executor\": \"%s\", \"baseline\": \"%s\", \"precision\": \"%s\"", b->ex->ops->name,
            bench_baseline(b), b->single ? "float" : "double");
    cli_json_field(f, "copy_gbs", b->copy_gbs);
    fprintf(f, ", \"host_threads\": %d", b->host_threads);
    fprintf(f, ", \"cache_bytes\": %zu", b->cache);
    cli_json_field(f, "min_time_s", b->min_time);
    fprintf(f, ", \"repeat\": %d, \"solve_repeat\": %d", b->repeat, b->solve_repeat);
    fprintf(f, ", \"vector_ops\": \"%s\"", cli_option_text(&b->o, "vector-ops", v[0], sizeof v[0]));
    spk_rhs_kind_text(&b->rhs, v[1], sizeof v[1]);
    fprintf(f, ", \"rhs_kind\": \"%s\"", v[1]);
    fprintf(f, ", \"ref_baseline\": %s, \"ref_absent\": ", bench_has_ref(b) ? "true" : "false");
    cli_json_string(f, b->ref_absent ? b->ref_absent : "");
    fprintf(f, ", \"solve_configs\": [");
    for (int k = 0; k < b->ncfg; k++) {
        const solve_cfg *c = &b->cfg[k];
        fprintf(f, "%s{\"name\": ", k ? ", " : "");
        cli_json_string(f, c->name);
        fprintf(f, ", \"builtin\": %s, \"format\": ", c->builtin ? "true" : "false");
        cli_json_string(f, c->builtin ? "cusparse" : c->o.format ? c->o.format : "auto");
        fprintf(f, ", \"vector_ops\": \"%s\", \"precond_sweeps\": %d, \"precond_isai\": %d, \"reorder\": \"%s\", "
                   "\"reorder_block\": %d, \"precond\": \"%s\", \"precond_precision\": \"%s\", \"race\": %d",
                cli_option_text(&c->o, "vector-ops", v[0], sizeof v[0]), c->o.precond_sweeps, c->o.precond_isai,
                cli_option_text(&c->o, "reorder", v[1], sizeof v[1]), c->o.reorder_block,
                spk_precond_kind_name((spk_precond_kind)c->precond),
                cli_option_text(&c->o, "precond-precision", v[2], sizeof v[2]), c->o.race);
        cli_json_field(f, "rtol", c->o.rtol);
        fprintf(f, "}");
    }
    fprintf(f, "]");
    if (b->floors) {
        fprintf(f, ", \"floors\": {\"launch_us\": ");
        cli_json_number(f, b->fl.launch_us);
        cli_json_field(f, "issue_us", b->fl.issue_us);
        cli_json_field(f, "sync_us", b->fl.sync_us);
        cli_json_field(f, "readback_us", b->fl.readback_us);
        cli_json_field(f, "graph_us", b->fl.graph_us);
        cli_json_field(f, "upload_pageable_gbs", b->fl.upload_pageable_gbs);
        cli_json_field(f, "upload_pinned_gbs", b->fl.upload_pinned_gbs);
        cli_json_field(f, "upload_register_gbs", b->fl.upload_register_gbs);
        fprintf(f, "}");
    }
}

/* The solve with format r as the SpMV (base: the baseline format's; ref:
 * the baseline ref's solve, NULL without one). */
static void json_solve(FILE *f, const fmt_result *r, const fmt_result *base, const fmt_result *ref)
{
    fprintf(f, ", \"solve\": {\"status\": \"%s\", \"method\": \"%s\", \"precond\": \"%s\", \"iterations\": %d",
            r->solve_status ? spk_status_name(r->solve_status) : "converged", r->method, r->precond,
            r->iterations);
    fprintf(f, ", \"colors\": %d, \"levels_lower\": %d, \"levels_upper\": %d", r->colors, r->levels_lower,
            r->levels_upper);
    cli_json_field(f, "true_relres", r->true_relres);
    cli_json_field(f, "setup_ms", r->s_setup_ms);
    cli_json_field(f, "solve_ms", r->s_ms);
    cli_json_field(f, "spmv_ms", r->s_spmv_ms);
    cli_json_field(f, "precond_ms", r->s_precond_ms);
    cli_json_field(f, "vector_ms", r->s_vector_ms);
    cli_json_field(f, "sync_ms", r->s_sync_ms);
    cli_json_field(f, "format_setup_ms", r->s_format_ms);
    cli_json_field(f, "precond_setup_ms", r->s_pc_setup_ms);
    fprintf(f, ", \"graph_iterations\": %d, \"block_iterations\": %d, \"block_cluster\": %d, \"race\": %d",
            r->graph_iterations, r->block_iterations, r->block_cluster, r->race);
    cli_json_field(f, "ms_per_iteration", r->iterations > 0 ? r->s_ms / r->iterations : NAN);
    cli_json_field(f, "speedup", base && base->solved && !base->solve_status && !r->solve_status
                               ? base->s_ms / r->s_ms
                               : NAN);
    cli_json_field(f, "upload_ms", r->s_upload_ms);
    cli_json_field(f, "ref_speedup_total", ref ? bench_cfg_total(ref) / bench_cfg_total(r) : NAN);
    fprintf(f, ", \"note\": ");
    cli_json_string(f, r->solve_note);
    fprintf(f, "}");
}

/* Format r on matrix m: its product, auto's choice, its solve. */
static void json_format(const bench *b, FILE *f, const mat_result *m, const fmt_result *r, int first)
{
    fprintf(f, "%s\n    {\"format\": \"%s\", \"status\": \"%s\"", first ? "" : ",", r->ops->name,
            r->status == SPK_OK ? "ok" : r->status == SPK_ERR_UNSUPPORTED ? "refused" : "failed");
    fprintf(f, ", \"note\": ");
    cli_json_string(f, r->note);
    cli_json_field(f, "setup_ms", r->setup_ms);
    if (!r->status) {
        cli_json_field(f, "device_mb", r->mbytes);
        cli_json_field(f, "rel_err", r->rel_err);
        const int calls[2] = {r->hot_calls, r->cold_calls};
        const char *reg[2] = {"hot", "cold"};
        for (int h = 0; h < 2; h++) {
            const rates q = bench_rates(b, m, r, h);
            fprintf(f, ", \"%s\": {\"ms\": ", reg[h]);
            cli_json_number(f, q.ms);
            fprintf(f, ", \"calls\": %d", calls[h]);
            if (h == 0) fprintf(f, ", \"batch\": %d", r->hot_batch);
            cli_json_field(f, "gflops", q.gflops);
            cli_json_field(f, "gbs_csr", q.gbs_csr);
            cli_json_field(f, "gbs_own", q.gbs_own);
            cli_json_field(f, "frac_copy", q.frac);
            cli_json_field(f, "speedup", q.speedup);
            fprintf(f, "}");
        }
        cli_json_field(f, "upload_ms", r->upload_ms);
        payback p;
        if (r->chose[0]) {
            fprintf(f, ", \"auto_choice\": \"%s\"", r->chose);
            cli_json_field(f, "auto_choice_hot_ms", bench_chosen_hot(m, r));
            if (bench_payback(b, m, &p)) {
                cli_json_field(f, "auto_cost_ms", p.cost_ms);
                fprintf(f, ", \"auto_cost_from\": \"%s\"", p.in_solve ? "solve" : "spmv");
                cli_json_field(f, "auto_spmv_cost_ms", p.spmv_cost_ms);
                cli_json_field(f, "auto_payback_products", p.products);
                fprintf(f, ", \"auto_solve_products\": %d, \"auto_paid_back\": %s", p.solve_products,
                        p.solve_products < 0 ? "null" : p.paid ? "true" : "false");
            }
        }
    }
    if (r->solved) json_solve(f, r, bench_find(m, bench_baseline(b)), bench_has_ref(b) ? &m->c[0] : NULL);
    fprintf(f, "}");
}

/* The configurations' solves of matrix m. */
static void json_configs(const bench *b, FILE *f, const mat_result *m)
{
    fprintf(f, ", \"configs\": [");
    const double rt = bench_cfg_total(&m->c[0]);
    for (int k = 0; k < b->ncfg; k++) {
        const fmt_result *r = &m->c[k];
        fprintf(f, "%s\n    {\"name\": ", k ? "," : "");
        cli_json_string(f, b->cfg[k].name);
        fprintf(f,
                ", \"status\": \"%s\", \"method\": \"%s\", \"precond\": \"%s\", \"precond_sweeps\": %d, "
                "\"iterations\": %d",
                !r->solved ? "not run" : r->solve_status ? spk_status_name(r->solve_status) : "converged",
                r->method, r->precond, r->sweeps, r->iterations);
        cli_json_field(f, "true_relres", r->true_relres);
        cli_json_field(f, "setup_ms", r->s_setup_ms);
        cli_json_field(f, "format_setup_ms", r->s_format_ms);
        cli_json_field(f, "precond_setup_ms", r->s_pc_setup_ms);
        cli_json_field(f, "solve_ms", r->s_ms);
        cli_json_field(f, "total_ms", r->solved && !r->solve_status ? r->s_setup_ms + r->s_ms : NAN);
        cli_json_field(f, "upload_ms", r->s_upload_ms);
        fprintf(f, ", \"upload_in_setup\": %s", r->s_upload_apart ? "false" : "true");
        cli_json_field(f, "total_excl_upload_ms", bench_cfg_total(r));
        cli_json_field(f, "spmv_ms", r->s_spmv_ms);
        cli_json_field(f, "precond_ms", r->s_precond_ms);
        cli_json_field(f, "vector_ms", r->s_vector_ms);
        cli_json_field(f, "sync_ms", r->s_sync_ms);
        cli_json_field(f, "speedup_total", rt / bench_cfg_total(r));
        fprintf(f, ", \"graph_iterations\": %d, \"block_iterations\": %d, \"block_cluster\": %d, \"race\": %d",
                r->graph_iterations, r->block_iterations, r->block_cluster, r->race);
        fprintf(f, ", \"note\": ");
        cli_json_string(f, r->solve_note);
        fprintf(f, ", \"choice\": ");
        cli_json_string(f, r->choice);
        fprintf(f, ", \"factorization\": ");
        cli_json_string(f, r->factorization);
        fprintf(f, ", \"factor_phases_ms\": {");
        for (int i = 0; i < r->phases; i++) {
            fprintf(f, "%s\"%s\": ", i ? ", " : "", r->phase_name[i]);
            cli_json_number(f, r->phase_ms[i]);
        }
        fprintf(f, "}");
        fprintf(f, "}");
    }
    fprintf(f, "]");
}

/* The summaries over the matrices. */
static void json_summary(const bench *b, FILE *f)
{
    fprintf(f, "\n], \"summary\": [");
    for (int k = 0; k < b->nfmts; k++) {
        int nh, nc, ns;
        double gh = bench_geomean(b, b->fmts[k]->name, 0, &nh), gc = bench_geomean(b, b->fmts[k]->name, 1, &nc);
        double gs = bench_geomean(b, b->fmts[k]->name, 2, &ns);
        fprintf(f, "%s\n  {\"format\": \"%s\"", k ? "," : "", b->fmts[k]->name);
        cli_json_field(f, "geomean_speedup_hot", gh);
        cli_json_field(f, "geomean_speedup_cold", gc);
        cli_json_field(f, "geomean_speedup_solve", gs);
        fprintf(f, ", \"matrices\": %d, \"solves\": %d}", nh, ns);
    }
    int ok, of, pk, pof;
    bench_auto_accuracy(b, &ok, &of);
    bench_auto_paid(b, &pk, &pof);
    fprintf(f, "\n], \"auto_within_5pct\": %d, \"auto_matrices\": %d", ok, of); /* by the chosen format's own time */
    fprintf(f, ", \"auto_paid_back\": %d, \"auto_solves\": %d", pk, pof);
    fprintf(f, ", \"config_summary\": [");
    for (int k = 0; k < b->ncfg; k++) {
        double geo, least, least_big, ir;
        int big, n = bench_cfg_summary(b, k, &geo, &least, &least_big, &big, &ir);
        fprintf(f, "%s{\"name\": ", k ? ", " : "");
        cli_json_string(f, b->cfg[k].name);
        cli_json_field(f, "geomean_speedup_total", geo);
        cli_json_field(f, "least_speedup_total", least);
        cli_json_field(f, "least_speedup_total_above_1M", least_big);
        fprintf(f, ", \"matrices_above_1M\": %d", big);
        cli_json_field(f, "max_iteration_ratio", ir);
        fprintf(f, ", \"matrices\": %d}", n);
    }
    fprintf(f, "]}\n");
}

int bench_write_json(bench *b, const char *path, int argc, char **argv)
{
    char *mem = NULL;
    size_t memlen = 0;
    FILE *f = open_memstream(&mem, &memlen); /* the report is written whole, then to path (report_close) */
    if (!f) return spk_err_set(&b->err, SPK_ERR_NOMEM, "out of host memory (report)");
    json_run(b, f, argc, argv);
    fprintf(f, ", \"matrices\": [");
    for (int i = 0; i < b->nm; i++) {
        const mat_result *m = &b->m[i];
        fprintf(f, "%s\n  {\"name\": ", i ? "," : "");
        cli_json_string(f, m->name);
        fprintf(f, ", \"rows\": %d, \"cols\": %d, \"nnz\": %d, \"regime\": \"%s\"", m->rows, m->cols, m->nnz,
                m->cache_regime ? "cache" : "memory");
        cli_json_field(f, "csr_traffic_bytes", m->traffic);
        fprintf(f, ", \"formats\": [");
        for (int k = 0; k < m->nf; k++) json_format(b, f, m, &m->f[k], k == 0);
        fprintf(f, "]");
        if (b->ncfg) json_configs(b, f, m);
        fprintf(f, "}");
    }
    json_summary(b, f);
    return report_close(b, f, &mem, &memlen, path);
}

/* The solve columns of a CSV row (r not solved: empty; bs the baseline
 * format's solve time, rt ref's time to solution). */
static void csv_solve(FILE *f, const fmt_result *r, double bs, double rt, const char *kind)
{
    if (!r->solved) {
        fprintf(f, ",,,,,,,,,,,,,,,\n");
        return;
    }
    double it = r->iterations > 0 ? r->iterations : NAN;
    fprintf(f, ",%s,%s,%s,%d,%.3e,%.3f,%.3f,%.5f,%.3f,%.3f,%.3f,%.4f,%.3f,%.4f,%s\n",
            r->solve_status ? spk_status_name(r->solve_status) : "converged", r->method, r->precond, r->iterations,
            r->true_relres, r->s_setup_ms, r->s_ms, r->s_ms / it, r->s_spmv_ms, r->s_precond_ms, r->s_vector_ms,
            r->solve_status ? NAN : bs / r->s_ms, r->s_upload_ms, rt / bench_cfg_total(r), kind);
}

int bench_write_csv(bench *b, const char *path)
{
    char *mem = NULL;
    size_t memlen = 0;
    FILE *f = open_memstream(&mem, &memlen); /* the report is written whole, then to path (report_close) */
    if (!f) return spk_err_set(&b->err, SPK_ERR_NOMEM, "out of host memory (report)");
    /* solve_upload_ms: of solve_setup_ms, the upload of A (ref: timed apart, not in it); the
     * configurations' rows follow the formats', as format config:NAME */
    fprintf(f, "matrix,rows,cols,nnz,regime,format,status,setup_ms,device_mb,hot_ms,hot_calls,cold_ms,cold_calls,"
               "gflops_hot,gbs_csr_hot,gbs_own_hot,frac_copy_hot,frac_copy_cold,speedup_hot,speedup_cold,rel_err,"
               "auto_choice,solve_status,method,precond,iterations,true_relres,solve_setup_ms,solve_ms,"
               "ms_per_iteration,spmv_ms,precond_ms,vector_ms,solve_speedup,solve_upload_ms,ref_speedup_total,"
               "rhs_kind\n");
    char kind[40];
    spk_rhs_kind_text(&b->rhs, kind, sizeof kind);
    for (int i = 0; i < b->nm; i++) {
        const mat_result *m = &b->m[i];
        const fmt_result *base = bench_find(m, bench_baseline(b));
        const double bs = base && base->solved && !base->solve_status ? base->s_ms : NAN;
        const double rt = bench_has_ref(b) ? bench_cfg_total(&m->c[0]) : NAN;
        for (int k = 0; k < m->nf; k++) {
            const fmt_result *r = &m->f[k];
            fprintf(f, "%s,%d,%d,%d,%s,%s,%s,%.4f", m->name, m->rows, m->cols, m->nnz,
                    m->cache_regime ? "cache" : "memory", r->ops->name,
                    r->status == SPK_OK ? "ok" : r->status == SPK_ERR_UNSUPPORTED ? "refused" : "failed", r->setup_ms);
            if (r->status) {
                fprintf(f, ",,,,,,,,,,,,,,");
            } else {
                const rates h = bench_rates(b, m, r, 0), c = bench_rates(b, m, r, 1);
                fprintf(f, ",%.6f,%.6f,%d,%.6f,%d,%.4f,%.3f,%.3f,%.5f,%.5f,%.5f,%.5f,%.3g,%s", r->mbytes, h.ms,
                        r->hot_calls, c.ms, r->cold_calls, h.gflops, h.gbs_csr, h.gbs_own, h.frac, c.frac, h.speedup,
                        c.speedup, r->rel_err, r->chose);
            }
            csv_solve(f, r, bs, rt, kind);
        }
        for (int k = 0; k < b->ncfg; k++) {
            fprintf(f, "%s,%d,%d,%d,%s,config:%s,config,,,,,,,,,,,,,,,", m->name, m->rows, m->cols, m->nnz,
                    m->cache_regime ? "cache" : "memory", b->cfg[k].name);
            csv_solve(f, &m->c[k], NAN, rt, kind);
        }
    }
    return report_close(b, f, &mem, &memlen, path);
}
