// The CPU double reference of the EnKF product (the EnKF report, "ECE 408
// final report"), straight from the definition:
//   P_HT[i, m] = Σ_j C[i, j] · (Σ_l e[i, l] e[j, l]) · H[m, j] / (L − 1),
// summing over the stored nonzeros H[m, j] only. O(N · nnz(H) · L) time,
// O(N · L) extra memory; meant for N up to about 20000.
#pragma once

#include <vector>

#include "enkf_problem.hpp"

namespace tiledqr::enkf {

// P_HT, (n, m) col-major, ld = n.
std::vector<double> enkf_product_cpu(const EnkfProblem& p);

}  // namespace tiledqr::enkf
