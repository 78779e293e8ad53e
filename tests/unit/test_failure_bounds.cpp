// Failure files: values that would hang the failure process, flood it with events or overflow its times
// are errors naming the file and the field.

#include <catch2/catch.hpp>
#include <fstream>
#include <string>

#include "models/failure_model.hpp"
#include "models/failure_replay.hpp"
#include "models/input_error.hpp"
#include "nvlsim_process.hpp"

using namespace nvlsim;

namespace {

std::string write(const std::string& name, const std::string& text) {
  const auto path = nvlsim::test::scratch_dir("failure-bounds-" + name) / name;
  std::ofstream(path) << text;
  return path.string();
}

// The error of a model with one GPU field set, after the file name.
std::string model_error(const std::string& field, const std::string& value) {
  const std::string file = write("m.json", R"({"components": {"gpu": {)" + field + ": " + value + "}}}");
  try {
    read_failure_model(file);
  } catch (const InputError& e) {
    return std::string(e.what()).substr(file.size());
  }
  return "no error";
}

}  // namespace

TEST_CASE("failure model numbers outside their documented bounds are errors", "[failures][errors]") {
  CHECK(model_error(R"("mtbf_hours")", "0.5") ==
        ": components.gpu.mtbf_hours: must be a number in [1, 1000000000], or 0");
  CHECK(model_error(R"("weibull_shape")", "0.05") ==
        ": components.gpu.weibull_shape: must be a number in [0.1, 10]");
  CHECK(model_error(R"("weibull_shape")", "1e-300").starts_with(": components.gpu.weibull_shape"));
  CHECK(model_error(R"("mttr_hours")", "1e-9") ==
        ": components.gpu.mttr_hours: must be a number in [0.01, 1000000000]");
  CHECK(model_error(R"("lognormal_sigma")", "50") ==
        ": components.gpu.lognormal_sigma: must be a number > 0 and <= 3");
  CHECK(model_error(R"("mtbf_hours")", "1e999").starts_with(": not valid JSON: "));
  CHECK(model_error(R"("mtbf_hours")", "0") == "no error");
  CHECK(model_error(R"("life": "weibull", "weibull_shape")", "10") == "no error");
  // A shape for a distribution the component does not use used to be ignored without a word.
  CHECK(model_error(R"("weibull_shape")", "10") ==
        ": components.gpu.weibull_shape: applies only with \"life\": \"weibull\"");
  CHECK(model_error(R"("repair": "fixed", "lognormal_sigma")", "1") ==
        ": components.gpu.lognormal_sigma: applies only with \"repair\": \"lognormal\"");
}

TEST_CASE("a rate scale that pushes an MTBF below 1 hour is an error", "[failures][errors]") {
  const std::string file = write(
      "scale.json",
      R"({"base": "none", "rate_scale": 200, "components": {"tray": {"mtbf_hours": 100, "mttr_hours": 1}}})");
  CHECK_THROWS_WITH(read_failure_model(file),
                    file + ": rate_scale: makes the tray MTBF 0.5 h, outside [1, 1000000000] h");
  FailureModel model = llama3_failure_model();
  CHECK_NOTHROW(check_failure_model(model, "--failure-rate-scale"));
  model[Component::gpu].mtbf_hours = 0.1;
  CHECK_THROWS_WITH(check_failure_model(model, "--failure-rate-scale"),
                    "--failure-rate-scale: makes the gpu MTBF 0.1 h, outside [1, 1000000000] h");
}

TEST_CASE("replay times beyond 1e12 s and overlong lines are errors naming the line", "[failures][errors]") {
  const ClusterShape two_racks{2, 18, 4};
  const std::string late = write("late.csv", "time,component,id,duration\n0,gpu,0,1\n1e13,gpu,0,1\n");
  CHECK_THROWS_WITH(read_failure_replay(late, two_racks, 18),
                    late + ":3: field 1 (time): expected seconds in [0, 1000000000000], got \"1e13\"");
  const std::string endless = write("endless.csv", "time,component,id,duration\n0,gpu,0,1e999\n");
  CHECK_THROWS_WITH(
      read_failure_replay(endless, two_racks, 18),
      endless + ":2: field 4 (duration): expected seconds > 0 and <= 1000000000000, got \"1e999\"");
  const std::string long_line = write("long.csv", "time,component,id,duration\n" + std::string(5000, '1'));
  CHECK_THROWS_WITH(read_failure_replay(long_line, two_racks, 18),
                    long_line + ":2: line longer than 4096 bytes");
}
