/* tiledqr_gpu.h — the GPU flavour of tiledqr's C interface: the tiled QR
 * factorisation of a matrix in device memory, run by the GPU task scheduler
 * on the caller's CUDA stream, and least squares on the device. Link with libtiledqr_gpu
 * (pkg-config tiledqr-gpu); the host functions of tiledqr.h apply to the
 * factors once downloaded.
 *
 *   double* dA;  cudaMalloc(&dA, sizeof(double) * lda * n);  ... fill dA ...
 *   tiledqr_gpu_factors* f = NULL;
 *   int rc = tiledqr_gpu_dgeqrf(m, n, dA, lda, &f, NULL, stream);  // R now in dA
 *   tiledqr_gpu_factors_free(f);
 *
 * Synchronisation: each call first plans for its shape — allocates device
 * memory and uploads the task graph with cudaMalloc/cudaMemcpy, which
 * synchronise as those CUDA calls always do — then orders the factorisation
 * and the writing of R on `stream` and returns when they are done there,
 * waiting on that stream only. Freeing a handle (cudaFree) waits for the
 * device, as cudaFree does.
 */
#ifndef TILEDQR_TILEDQR_GPU_H
#define TILEDQR_TILEDQR_GPU_H

#include <cuda_runtime_api.h>
#include <stdint.h>
#include <tiledqr/tiledqr.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The reflectors of one factorisation, in device memory (opaque). */
typedef struct tiledqr_gpu_factors tiledqr_gpu_factors;

/* TILEDQR_SUCCESS when the current device can run this library's GPU code;
 * TILEDQR_ERR_NO_GPU without a device; TILEDQR_ERR_GPU_ARCH when the library
 * was built for other architectures (tiledqr_last_error() says which and
 * how to rebuild). Every GPU function checks this first. */
int tiledqr_gpu_check_device(void);

/* dA (m, n) column-major in device memory, ldda >= m, m, n >= 1. On success
 * dA holds R (min(m, n), n) on and above its diagonal and zeros below, and
 * *factors a new handle (factors may be NULL). Options: tile 0 (chosen for
 * the shape and precision), 32, 64, 128 or 256, with inner_block 0, 16, 32 or
 * 64 for tiles of 64 and more (at most 32 for 256); tree as in tiledqr.h
 * (AUTO: chosen for the shape); threads and backend are not used. stream may
 * be 0 (the default stream). */
int tiledqr_gpu_dgeqrf(int64_t m, int64_t n, double* dA, int64_t ldda, tiledqr_gpu_factors** factors,
                       const tiledqr_options* opts, cudaStream_t stream);
int tiledqr_gpu_sgeqrf(int64_t m, int64_t n, float* dA, int64_t ldda, tiledqr_gpu_factors** factors,
                       const tiledqr_options* opts, cudaStream_t stream);

/* A batch of matrices in device memory, A_i (m, n) column-major at dA +
 * i*stride_a (ldda >= max(1, m), stride_a >= ldda*n), i = 0 … batch-1,
 * factored together: their tiles side by side in one task graph, run by
 * one launch of the GPU scheduler (tiles of 32: options.tile 0 or 32;
 * options.tree for every matrix, AUTO: binary for m >= 4n, flat
 * otherwise). On success each A_i holds its R on and above the diagonal
 * and zeros below. batch = 0, m = 0 or n = 0: nothing to do. Enqueued on
 * `stream`; returns when it is done there. */
int tiledqr_gpu_dgeqrf_batch(int64_t batch, int64_t m, int64_t n, double* dA, int64_t ldda, int64_t stride_a,
                             const tiledqr_options* opts, cudaStream_t stream);
int tiledqr_gpu_sgeqrf_batch(int64_t batch, int64_t m, int64_t n, float* dA, int64_t ldda, int64_t stride_a,
                             const tiledqr_options* opts, cudaStream_t stream);

/* A batch of matrices of different shapes in device memory: A_i (m[i],
 * n[i]) column-major at dA[i] (device addresses in a host array), ldda[i]
 * >= max(1, m[i]), m[i], n[i] >= 0, i = 0 … batch-1, factored together as
 * one task graph (tiles of 32; options.tree for every matrix, AUTO:
 * chosen for each shape). Each A_i <- its R, zeros below the diagonal, on
 * `stream`; returns when it is done there. */
int tiledqr_gpu_dgeqrf_vbatch(int64_t batch, const int64_t* m, const int64_t* n, double* const* dA,
                              const int64_t* ldda, const tiledqr_options* opts, cudaStream_t stream);
int tiledqr_gpu_sgeqrf_vbatch(int64_t batch, const int64_t* m, const int64_t* n, float* const* dA,
                              const int64_t* ldda, const tiledqr_options* opts, cudaStream_t stream);

/* The same for a host stack (as tiledqr_?geqrf_batch of tiledqr.h): each
 * A_i <- R_i; factors: NULL or an array of batch host handles to fill,
 * each matrix's reflectors downloaded (for tiledqr_?ormqr, ?orgqr and
 * ?orgqr_batch). Every matrix is checked (finite entries) before any is
 * sent; on failure no handle is returned and A is unchanged. */
int tiledqr_gpu_dgeqrf_batch_host(int64_t batch, int64_t m, int64_t n, double* A, int64_t lda, int64_t stride_a,
                                  tiledqr_factors** factors, const tiledqr_options* opts);
int tiledqr_gpu_sgeqrf_batch_host(int64_t batch, int64_t m, int64_t n, float* A, int64_t lda, int64_t stride_a,
                                  tiledqr_factors** factors, const tiledqr_options* opts);

/* A plan: the device memory and the task graph of a factorisation made
 * once and run any number of times (as cuFFT's plans), for `batch` matrices
 * (m, n) at a time: batch = 1 one matrix at the options' tile (0: chosen
 * for the shape), as tiledqr_gpu_?geqrf; batch > 1 a stack as one task
 * graph, as tiledqr_gpu_?geqrf_batch. m, n >= 1. The plan keeps the
 * precision of the function that made it. */
typedef struct tiledqr_gpu_plan tiledqr_gpu_plan;
int tiledqr_gpu_dgeqrf_plan(tiledqr_gpu_plan** plan, int64_t batch, int64_t m, int64_t n,
                            const tiledqr_options* opts);
int tiledqr_gpu_sgeqrf_plan(tiledqr_gpu_plan** plan, int64_t batch, int64_t m, int64_t n,
                            const tiledqr_options* opts);

/* Runs the plan on the stack at dA (A_i at dA + i*stride_a, ldda >=
 * max(1, m), stride_a >= ldda*n when batch > 1, unused otherwise): each
 * A_i <- its R, zeros below the diagonal, on `stream`, returning when it is
 * done there. Nothing is allocated and no graph is built; another matrix,
 * another stream or another ldda each call. TILEDQR_ERR_INVALID_ARGUMENT
 * for a NULL plan, a plan of the other precision or a stack that does not
 * fit it. */
int tiledqr_gpu_dgeqrf_execute(tiledqr_gpu_plan* plan, double* dA, int64_t ldda, int64_t stride_a,
                               cudaStream_t stream);
int tiledqr_gpu_sgeqrf_execute(tiledqr_gpu_plan* plan, float* dA, int64_t ldda, int64_t stride_a,
                               cudaStream_t stream);

/* Frees the plan's device memory (NULL: nothing). */
void tiledqr_gpu_plan_destroy(tiledqr_gpu_plan* plan);

/* A host handle with the same reflectors, for tiledqr_?ormqr / ?orgqr
 * (copies device to host, so it waits for the device). */
int tiledqr_gpu_factors_download(const tiledqr_gpu_factors* factors, tiledqr_factors** host);

/* The same as tiledqr_?geqrf of tiledqr.h for a host matrix A (m, n),
 * lda >= m, factored on the GPU: A <- R, *factors (may be NULL) a host handle. */
int tiledqr_gpu_dgeqrf_host(int64_t m, int64_t n, double* A, int64_t lda, tiledqr_factors** factors,
                            const tiledqr_options* opts);
int tiledqr_gpu_sgeqrf_host(int64_t m, int64_t n, float* A, int64_t lda, tiledqr_factors** factors,
                            const tiledqr_options* opts);

/* Least squares X = argmin ||A X - B||_F on the GPU for dA (m, n) and dB
 * (m, nrhs) in device memory, m >= n >= 1, ldda >= m, lddb >= m: the
 * factorisation (on `stream`, as tiledqr_gpu_?geqrf), Q^T B and the
 * triangular solve all on the device. On success dA holds R (as after
 * tiledqr_gpu_?geqrf) and dB's first n rows hold X (its other rows are left
 * as they were). The rank check is that of
 * tiledqr_?gels: when some |r_ii| <= max(m, n)·eps·max_j |r_jj| it returns
 * TILEDQR_RANK_DEFICIENT with R in dA and dB unchanged. Returns when X is in
 * dB; applying Q^T and the solve run on the default stream and synchronise
 * the device. Options as tiledqr_gpu_?geqrf. */
int tiledqr_gpu_dgels(int64_t m, int64_t n, int64_t nrhs, double* dA, int64_t ldda, double* dB, int64_t lddb,
                      const tiledqr_options* opts, cudaStream_t stream);
int tiledqr_gpu_sgels(int64_t m, int64_t n, int64_t nrhs, float* dA, int64_t ldda, float* dB, int64_t lddb,
                      const tiledqr_options* opts, cudaStream_t stream);

/* The same for host arrays A (m, n), lda >= m, and B (m, nrhs), ldb >= m, as
 * tiledqr_?gels of tiledqr.h computed on the GPU (A and B are copied to the
 * device and back): A <- R, B's first n rows <- X (the others as they were);
 * a NaN or infinity in A or B is TILEDQR_ERR_INVALID_ARGUMENT. */
int tiledqr_gpu_dgels_host(int64_t m, int64_t n, int64_t nrhs, double* A, int64_t lda, double* B, int64_t ldb,
                           const tiledqr_options* opts);
int tiledqr_gpu_sgels_host(int64_t m, int64_t n, int64_t nrhs, float* A, int64_t lda, float* B, int64_t ldb,
                           const tiledqr_options* opts);

/* Frees a handle and its device memory; NULL is allowed. */
void tiledqr_gpu_factors_free(tiledqr_gpu_factors* factors);

#ifdef __cplusplus
}
#endif

#endif /* TILEDQR_TILEDQR_GPU_H */
