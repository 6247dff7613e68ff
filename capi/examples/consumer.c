/* consumer.c — a user's first tiledqr program: factor a random 300 x 200 matrix,
 * rebuild A = Q R with tiledqr_dormqr and check max|A - QR| <= 1e-12 max|A|.
 * Build: cc $(pkg-config --cflags --libs tiledqr) consumer.c */
#include <stdio.h>
#include <stdlib.h>
#include <tiledqr/tiledqr.h>

int main(void) {
  enum { M = 300, N = 200 };
  double *a = malloc(sizeof(double) * M * N), *qr = malloc(sizeof(double) * M * N), err = 0, amax = 0;
  srand(42); /* seed 42 */
  for (int i = 0; i < M * N; ++i) a[i] = qr[i] = (double)rand() / RAND_MAX - 0.5;
  tiledqr_factors* f = NULL;
  int rc = tiledqr_dgeqrf(M, N, qr, M, &f, NULL);  /* qr <- R (upper), zeros below */
  if (rc == TILEDQR_SUCCESS) rc = tiledqr_dormqr('N', M, N, f, qr, M);  /* qr <- Q R */
  if (rc != TILEDQR_SUCCESS) { printf("tiledqr: %s: %s\n", tiledqr_strerror(rc), tiledqr_last_error()); return 1; }
  for (int i = 0; i < M * N; ++i) {
    double d = a[i] - qr[i], v = a[i] < 0 ? -a[i] : a[i];
    err = d < 0 ? (-d > err ? -d : err) : (d > err ? d : err);
    amax = v > amax ? v : amax;
  }
  printf("tiledqr %s: %dx%d, max|A - QR| / max|A| = %.2e\n", tiledqr_version(), M, N, err / amax);
  tiledqr_factors_free(f);
  free(a); free(qr);
  return err <= 1e-12 * amax ? 0 : 1;
}
