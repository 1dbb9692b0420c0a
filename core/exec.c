/* exec.c -- what every executor shares: destruction with its attachments,
 * and the attachments themselves (state an upper layer keeps per executor). */
#include "exec.h"

#include <stdlib.h>

void spk_exec_destroy(spk_exec *e)
{
    if (!e) return;
    for (int i = SPK_EXEC_ATTACHED - 1; i >= 0; i--) {
        spk_exec_attachment *a = &e->attached[i];
        if (a->key && a->destroy) a->destroy(a->state);
        a->key = NULL;
        a->state = NULL;
    }
    e->ops->destroy(e);
}

int spk_exec_attach(spk_exec *e, const void *key, void *state, void (*destroy)(void *state))
{
    if (!e || !key) return SPK_ERR_INVALID_ARG;
    int slot = -1;
    for (int i = 0; i < SPK_EXEC_ATTACHED; i++) {
        if (e->attached[i].key == key)
            return spk_err_set(e->err, SPK_ERR_INTERNAL, "executor state attached twice under one key");
        if (slot < 0 && !e->attached[i].key) slot = i;
    }
    if (slot < 0)
        return spk_err_set(e->err, SPK_ERR_INTERNAL, "executor: more than %d kinds of attached state",
                           SPK_EXEC_ATTACHED);
    e->attached[slot].key = key;
    e->attached[slot].state = state;
    e->attached[slot].destroy = destroy;
    return SPK_OK;
}

void *spk_exec_attached(const spk_exec *e, const void *key)
{
    for (int i = 0; e && key && i < SPK_EXEC_ATTACHED; i++)
        if (e->attached[i].key == key) return e->attached[i].state;
    return NULL;
}

void *spk_exec_state(spk_exec *e, const void *key, size_t bytes, void (*destroy)(void *state), const char *what,
                     int *made)
{
    if (made) *made = 0;
    void *s = spk_exec_attached(e, key);
    if (s) return s;
    s = calloc(1, bytes ? bytes : 1);
    if (!s) {
        spk_err_set(e->err, SPK_ERR_NOMEM, "out of host memory (%s)", what);
        return NULL;
    }
    if (spk_exec_attach(e, key, s, destroy)) {
        free(s);
        return NULL;
    }
    if (made) *made = 1;
    return s;
}
