// The GPU stages of the driver in a build without CUDA: each case is
// skipped with this reason.
#include "bench_case.hpp"
#include "provenance.hpp"

namespace tiledqr::bench {

BenchOutcome bench_fr3(const BenchCase&) { throw NoDevice{"built without CUDA"}; }
BenchOutcome bench_fr4(const BenchCase&) { throw NoDevice{"built without CUDA"}; }
BenchOutcome bench_cusolver(const BenchCase&) { throw NoDevice{"built without CUDA"}; }
BenchOutcome bench_cublas(const BenchCase&) { throw NoDevice{"built without CUDA"}; }
std::string gpu_provenance() { return "built without CUDA"; }

}  // namespace tiledqr::bench
