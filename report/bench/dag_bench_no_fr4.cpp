// tiledqr_dag_bench's FR4 method in a build without the CUDA toolkit
// (dag_bench_fr4.hpp): FR4 is not there to measure.
#include "dag_bench_fr4.hpp"

#include "errors.hpp"

namespace tiledqr::bench {

bool fr4_prepare_available() { return false; }

int64_t fr4_prepare_graph(int64_t, int64_t, Tree) {
  throw InputError("fr4_prepare needs FR4, which this build lacks (no CUDA toolkit)");
}

}  // namespace tiledqr::bench
