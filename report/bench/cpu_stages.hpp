// The CPU stages of the benchmark driver.
#pragma once

#include "bench_case.hpp"

namespace tiledqr::bench {

BenchOutcome bench_fr1(const BenchCase& c);
BenchOutcome bench_fr2(const BenchCase& c);
BenchOutcome bench_fr2_reuse(const BenchCase& c);  // FR2 into the tiles of its previous run
BenchOutcome bench_lapack(const BenchCase& c);  // LAPACKE_?geqrf, OpenBLAS on c.threads threads

}  // namespace tiledqr::bench
