// fr1_serial — FR1: tiled QR on one CPU thread, the task grid.
#include "serial_executor.hpp"
#include "stage_main.hpp"

int main(int argc, char** argv) {
  tiledqr::StageDescription stage;
  stage.name = "fr1_serial";
  stage.summary = "Tiled QR factorisation on one CPU thread (the task grid)";
  stage.device = "cpu";
  stage.runs_tsqr = true;
  stage.factor_double = tiledqr::factor<double>;
  stage.factor_float = tiledqr::factor<float>;
  return tiledqr::stage_main(argc, argv, stage);
}
