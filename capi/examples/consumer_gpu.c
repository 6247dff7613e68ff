/* consumer_gpu.c — tiledqr on the GPU from C: factor a random 300 x 200 matrix in
 * device memory on a stream, then rebuild A = Q R on the host from the downloaded
 * factors and check max|A - QR| <= 1e-12 max|A|. Exits 77 without a GPU.
 * Build: cc $(pkg-config --cflags --libs tiledqr-gpu) consumer_gpu.c */
#include <stdio.h>
#include <stdlib.h>
#include <tiledqr/tiledqr_gpu.h>

/* max_i |x_i| */
static double max_abs(const double* x, int count) {
  double m = 0;
  for (int i = 0; i < count; ++i) m = x[i] > m ? x[i] : -x[i] > m ? -x[i] : m;
  return m;
}

int main(void) {
  enum { M = 300, N = 200 };
  double *a = malloc(sizeof(double) * M * N), *qr = malloc(sizeof(double) * M * N), *d_a = NULL, err, amax;
  tiledqr_gpu_factors* f = NULL;
  tiledqr_factors* host = NULL;
  cudaStream_t stream;
  int rc = tiledqr_gpu_check_device();
  if (rc == TILEDQR_ERR_NO_GPU) { printf("no GPU: %s\n", tiledqr_last_error()); return 77; }
  srand(42); /* seed 42 */
  for (int i = 0; i < M * N; ++i) a[i] = (double)rand() / RAND_MAX - 0.5;
  if (rc == TILEDQR_SUCCESS && (cudaStreamCreate(&stream) != cudaSuccess || cudaMalloc((void**)&d_a, sizeof(double) * M * N) != cudaSuccess ||
                                cudaMemcpyAsync(d_a, a, sizeof(double) * M * N, cudaMemcpyHostToDevice, stream) != cudaSuccess)) {
    printf("CUDA setup failed\n"); return 1;
  }
  if (rc == TILEDQR_SUCCESS) rc = tiledqr_gpu_dgeqrf(M, N, d_a, M, &f, NULL, stream);  /* d_a <- R */
  if (rc == TILEDQR_SUCCESS && cudaMemcpyAsync(qr, d_a, sizeof(double) * M * N, cudaMemcpyDeviceToHost, stream) == cudaSuccess &&
      cudaStreamSynchronize(stream) == cudaSuccess) rc = tiledqr_gpu_factors_download(f, &host);
  if (rc == TILEDQR_SUCCESS) rc = tiledqr_dormqr('N', M, N, host, qr, M);  /* qr <- Q R */
  if (rc != TILEDQR_SUCCESS) { printf("tiledqr: %s: %s\n", tiledqr_strerror(rc), tiledqr_last_error()); return 1; }
  for (int i = 0; i < M * N; ++i) qr[i] -= a[i];  /* qr <- Q R - A */
  err = max_abs(qr, M * N);
  amax = max_abs(a, M * N);
  printf("tiledqr %s on the GPU: %dx%d, max|A - QR| / max|A| = %.2e\n", tiledqr_version(), M, N, err / amax);
  tiledqr_gpu_factors_free(f); tiledqr_factors_free(host);
  cudaFree(d_a); cudaStreamDestroy(stream); free(a); free(qr);
  return err <= 1e-12 * amax ? 0 : 1;
}
