/* cuda_libs.h -- cuBLAS and cuSPARSE opened when the first CUDA executor is
 * made, not linked: a program that never solves on the GPU (the host path,
 * `spk --version`) does not map them, and with them cuBLASLt and nvJitLink,
 * about 190 MB.  Every call of theirs in spk goes through the table below:
 * after this header, each name is a macro reading its entry (the calls keep
 * their spelling).  spk_cuda_libs_load fills the table once; the CUDA
 * executor calls it before its first handle, so code holding a handle may
 * call freely. */
#ifndef SPK_CORE_CUDA_LIBS_H
#define SPK_CORE_CUDA_LIBS_H

#include <cublas_v2.h>
#include <cusparse.h>

#include "error.h"

/* the entry points spk calls (the names the libraries export) */
#define SPK_CUBLAS_FNS(X)                                                                                    \
    X(cublasCreate_v2) X(cublasDestroy_v2) X(cublasSetStream_v2) X(cublasSetPointerMode_v2) X(cublasDdot_v2)  \
    X(cublasDnrm2_v2) X(cublasDaxpy_v2) X(cublasDscal_v2) X(cublasDcopy_v2) X(cublasDgemv_v2)                \
    X(cublasZdotc_v2) X(cublasZdotu_v2) X(cublasGetStatusName) X(cublasGetStatusString)
#define SPK_CUSPARSE_FNS(X)                                                                                  \
    X(cusparseCreate) X(cusparseDestroy) X(cusparseSetStream) X(cusparseSetPointerMode)                       \
    X(cusparseGetErrorName) X(cusparseGetErrorString) X(cusparseCreateDnVec) X(cusparseDnVecSetValues)        \
    X(cusparseDestroyDnVec) X(cusparseCreateCsr) X(cusparseCreateBsr) X(cusparseCreateSlicedEll)              \
    X(cusparseDestroySpMat) X(cusparseSpMatSetAttribute) X(cusparseSpMV_bufferSize) X(cusparseSpMV_preprocess) \
    X(cusparseSpMV) X(cusparseSpSV_createDescr) X(cusparseSpSV_destroyDescr) X(cusparseSpSV_bufferSize)       \
    X(cusparseSpSV_analysis) X(cusparseSpSV_solve) X(cusparseSpSV_updateMatrix) X(cusparseCsr2cscEx2_bufferSize) \
    X(cusparseCsr2cscEx2) X(cusparseCreateMatDescr) X(cusparseDestroyMatDescr) X(cusparseSetMatType)          \
    X(cusparseSetMatIndexBase) X(cusparseCreateCsrilu02Info) X(cusparseDestroyCsrilu02Info)                   \
    X(cusparseDcsrilu02_bufferSize) X(cusparseDcsrilu02_analysis) X(cusparseDcsrilu02)                        \
    X(cusparseXcsrilu02_zeroPivot) X(cusparseCreateCsric02Info) X(cusparseDestroyCsric02Info)                 \
    X(cusparseDcsric02_bufferSize) X(cusparseDcsric02_analysis) X(cusparseDcsric02) X(cusparseXcsric02_zeroPivot)

/* csrilu02 / csric02 are deprecated in cuSPARSE 12 (the reference factorizations still use them) */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
#define SPK_LIBS_ENTRY_(f) __typeof__(&f) f;
typedef struct spk_cuda_libs {
    SPK_CUBLAS_FNS(SPK_LIBS_ENTRY_)
    SPK_CUSPARSE_FNS(SPK_LIBS_ENTRY_)
} spk_cuda_libs;
#undef SPK_LIBS_ENTRY_
#pragma GCC diagnostic pop

#ifdef __cplusplus
extern "C" {
#endif
/* Open both libraries and fill the table (once; later calls return the
 * first outcome).  SPK_ERR_DEVICE with a message naming the file and
 * dlerror's reason where one cannot be opened or lacks an entry point. */
int spk_cuda_libs_load(spk_err *err);
/* The table (filled by a successful spk_cuda_libs_load). */
extern spk_cuda_libs spk_cuda_libs_table;
#ifdef __cplusplus
}
#endif

#ifndef SPK_CUDA_LIBS_IMPL /* cuda_libs.c itself reads the real names */
#define SPK_LIBS_REDIRECT_(f) (spk_cuda_libs_table.f)
#define cublasCreate_v2 SPK_LIBS_REDIRECT_(cublasCreate_v2)
#define cublasDestroy_v2 SPK_LIBS_REDIRECT_(cublasDestroy_v2)
#define cublasSetStream_v2 SPK_LIBS_REDIRECT_(cublasSetStream_v2)
#define cublasSetPointerMode_v2 SPK_LIBS_REDIRECT_(cublasSetPointerMode_v2)
#define cublasDdot_v2 SPK_LIBS_REDIRECT_(cublasDdot_v2)
#define cublasDnrm2_v2 SPK_LIBS_REDIRECT_(cublasDnrm2_v2)
#define cublasDaxpy_v2 SPK_LIBS_REDIRECT_(cublasDaxpy_v2)
#define cublasZdotc_v2 SPK_LIBS_REDIRECT_(cublasZdotc_v2)
#define cublasZdotu_v2 SPK_LIBS_REDIRECT_(cublasZdotu_v2)
#define cublasDscal_v2 SPK_LIBS_REDIRECT_(cublasDscal_v2)
#define cublasDcopy_v2 SPK_LIBS_REDIRECT_(cublasDcopy_v2)
#define cublasDgemv_v2 SPK_LIBS_REDIRECT_(cublasDgemv_v2)
#define cublasGetStatusName SPK_LIBS_REDIRECT_(cublasGetStatusName)
#define cublasGetStatusString SPK_LIBS_REDIRECT_(cublasGetStatusString)
#define cusparseCreate SPK_LIBS_REDIRECT_(cusparseCreate)
#define cusparseDestroy SPK_LIBS_REDIRECT_(cusparseDestroy)
#define cusparseSetStream SPK_LIBS_REDIRECT_(cusparseSetStream)
#define cusparseSetPointerMode SPK_LIBS_REDIRECT_(cusparseSetPointerMode)
#define cusparseGetErrorName SPK_LIBS_REDIRECT_(cusparseGetErrorName)
#define cusparseGetErrorString SPK_LIBS_REDIRECT_(cusparseGetErrorString)
#define cusparseCreateDnVec SPK_LIBS_REDIRECT_(cusparseCreateDnVec)
#define cusparseDnVecSetValues SPK_LIBS_REDIRECT_(cusparseDnVecSetValues)
#define cusparseDestroyDnVec SPK_LIBS_REDIRECT_(cusparseDestroyDnVec)
#define cusparseCreateCsr SPK_LIBS_REDIRECT_(cusparseCreateCsr)
#define cusparseCreateBsr SPK_LIBS_REDIRECT_(cusparseCreateBsr)
#define cusparseCreateSlicedEll SPK_LIBS_REDIRECT_(cusparseCreateSlicedEll)
#define cusparseDestroySpMat SPK_LIBS_REDIRECT_(cusparseDestroySpMat)
#define cusparseSpMatSetAttribute SPK_LIBS_REDIRECT_(cusparseSpMatSetAttribute)
#define cusparseSpMV_bufferSize SPK_LIBS_REDIRECT_(cusparseSpMV_bufferSize)
#define cusparseSpMV_preprocess SPK_LIBS_REDIRECT_(cusparseSpMV_preprocess)
#define cusparseSpMV SPK_LIBS_REDIRECT_(cusparseSpMV)
#define cusparseSpSV_createDescr SPK_LIBS_REDIRECT_(cusparseSpSV_createDescr)
#define cusparseSpSV_destroyDescr SPK_LIBS_REDIRECT_(cusparseSpSV_destroyDescr)
#define cusparseSpSV_bufferSize SPK_LIBS_REDIRECT_(cusparseSpSV_bufferSize)
#define cusparseSpSV_analysis SPK_LIBS_REDIRECT_(cusparseSpSV_analysis)
#define cusparseSpSV_solve SPK_LIBS_REDIRECT_(cusparseSpSV_solve)
#define cusparseSpSV_updateMatrix SPK_LIBS_REDIRECT_(cusparseSpSV_updateMatrix)
#define cusparseCsr2cscEx2_bufferSize SPK_LIBS_REDIRECT_(cusparseCsr2cscEx2_bufferSize)
#define cusparseCsr2cscEx2 SPK_LIBS_REDIRECT_(cusparseCsr2cscEx2)
#define cusparseCreateMatDescr SPK_LIBS_REDIRECT_(cusparseCreateMatDescr)
#define cusparseDestroyMatDescr SPK_LIBS_REDIRECT_(cusparseDestroyMatDescr)
#define cusparseSetMatType SPK_LIBS_REDIRECT_(cusparseSetMatType)
#define cusparseSetMatIndexBase SPK_LIBS_REDIRECT_(cusparseSetMatIndexBase)
#define cusparseCreateCsrilu02Info SPK_LIBS_REDIRECT_(cusparseCreateCsrilu02Info)
#define cusparseDestroyCsrilu02Info SPK_LIBS_REDIRECT_(cusparseDestroyCsrilu02Info)
#define cusparseDcsrilu02_bufferSize SPK_LIBS_REDIRECT_(cusparseDcsrilu02_bufferSize)
#define cusparseDcsrilu02_analysis SPK_LIBS_REDIRECT_(cusparseDcsrilu02_analysis)
#define cusparseDcsrilu02 SPK_LIBS_REDIRECT_(cusparseDcsrilu02)
#define cusparseXcsrilu02_zeroPivot SPK_LIBS_REDIRECT_(cusparseXcsrilu02_zeroPivot)
#define cusparseCreateCsric02Info SPK_LIBS_REDIRECT_(cusparseCreateCsric02Info)
#define cusparseDestroyCsric02Info SPK_LIBS_REDIRECT_(cusparseDestroyCsric02Info)
#define cusparseDcsric02_bufferSize SPK_LIBS_REDIRECT_(cusparseDcsric02_bufferSize)
#define cusparseDcsric02_analysis SPK_LIBS_REDIRECT_(cusparseDcsric02_analysis)
#define cusparseDcsric02 SPK_LIBS_REDIRECT_(cusparseDcsric02)
#define cusparseXcsric02_zeroPivot SPK_LIBS_REDIRECT_(cusparseXcsric02_zeroPivot)
#endif

#endif
