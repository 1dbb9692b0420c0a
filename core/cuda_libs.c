/* cuda_libs.c -- open cuBLAS and cuSPARSE at the first CUDA executor (cuda_libs.h). */
#define SPK_CUDA_LIBS_IMPL
#include "cuda_libs.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>

spk_cuda_libs spk_cuda_libs_table;

static int loaded;            /* 1 loaded, -1 failed (failure says why) */
static char failure[SPK_ERR_MSG_MAX];

/* The library by its soname (the loader's search: LD_LIBRARY_PATH, the
 * cache, the run paths), else in the folder CMake found it in. */
static void *open_lib(const char *soname, const char *dir)
{
    void *h = dlopen(soname, RTLD_NOW | RTLD_LOCAL);
    if (h || !dir || !*dir) return h;
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", dir, soname);
    return dlopen(path, RTLD_NOW | RTLD_LOCAL);
}

#define SPK_LIBS_SYM_(f)                                                                                   \
    if (!(*(void **)&spk_cuda_libs_table.f = dlsym(h, #f))) {                                                \
        snprintf(failure, sizeof failure, "%s has no entry point %s (a different major version than spk was " \
                 "built with?)", name, #f);                                                                \
        return -1;                                                                                         \
    }

static int load_cublas(void)
{
    const char *name = SPK_CUBLAS_SONAME;
    void *h = open_lib(name, SPK_CUDA_LIBDIR);
    if (!h) {
        snprintf(failure, sizeof failure, "cannot open %s (cuBLAS, part of the CUDA toolkit): %s", name, dlerror());
        return -1;
    }
    SPK_CUBLAS_FNS(SPK_LIBS_SYM_)
    return 1;
}

static int load_cusparse(void)
{
    const char *name = SPK_CUSPARSE_SONAME;
    void *h = open_lib(name, SPK_CUDA_LIBDIR);
    if (!h) {
        snprintf(failure, sizeof failure, "cannot open %s (cuSPARSE, part of the CUDA toolkit): %s", name,
                 dlerror());
        return -1;
    }
    SPK_CUSPARSE_FNS(SPK_LIBS_SYM_)
    return 1;
}

static void load_both(void)
{
    loaded = load_cublas();
    if (loaded > 0) loaded = load_cusparse();
}

int spk_cuda_libs_load(spk_err *err)
{
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, load_both); /* the libraries stay open for the process */
    return loaded > 0 ? SPK_OK : spk_err_set(err, SPK_ERR_DEVICE, "%s", failure);
}
