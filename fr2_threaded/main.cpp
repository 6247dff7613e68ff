// fr2_threaded — FR2: tiled QR on a pool of CPU threads sharing the task
// grid (flat tree) or the DAG (binary, greedy).
#include "stage_main.hpp"
#include "threaded_executor.hpp"

int main(int argc, char** argv) {
  tiledqr::StageDescription stage;
  stage.name = "fr2_threaded";
  stage.summary = "Tiled QR factorisation on CPU worker threads (a shared task grid or DAG)";
  stage.device = "cpu";
  stage.runs_tsqr = true;
  stage.uses_threads = true;
  stage.default_tree = tiledqr::default_tree;
  stage.factor_double = tiledqr::factor_threaded<double>;
  stage.factor_float = tiledqr::factor_threaded<float>;
  return tiledqr::stage_main(argc, argv, stage);
}
