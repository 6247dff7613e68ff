// The command-line programs' shared parsing, error report and JSON numbers
// (program.hpp).
#include "program.hpp"

#include <CLI/CLI.hpp>

#include <cmath>
#include <cstdio>
#include <iostream>
#include <new>
#include <sstream>
#include <system_error>

#include "errors.hpp"

namespace tiledqr {
namespace {

int report(const std::string& program, const char* kind, const std::exception& e, int code) {
  std::cerr << program << ": " << kind << e.what() << "\n";
  return code;
}

}  // namespace

int parse_command_line(CLI::App& app, int argc, char** argv, const std::string& program) {
  try {
    app.parse(argc, argv);
  } catch (const CLI::Success& e) {  // --help or --version
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    std::cerr << program << ": " << e.what() << "\nRun with --help for more information.\n";
    return exit_code::bad_input;
  }
  return -1;
}

int run_reporting_errors(const std::string& program, const std::function<int()>& body,
                         const std::string& resource_hint) {
  try {
    return body();
  } catch (const InputError& e) {
    return report(program, "error: ", e, exit_code::bad_input);
  } catch (const NumericalError& e) {
    return report(program, "error: ", e, exit_code::check_failed);
  } catch (const GpuError& e) {
    return report(program, "GPU error: ", e, exit_code::no_gpu);
  } catch (const StallError& e) {
    return report(program, "stalled: ", e, exit_code::stalled);
  } catch (const std::bad_alloc&) {
    std::cerr << program << ": error: out of host memory\n";
    return exit_code::bad_input;
  } catch (const std::system_error& e) {
    // Typically std::thread failing to start a worker (more threads than the
    // system allows): like memory above, a request the machine refused.
    std::cerr << program << ": error: the system refused a resource: " << e.what() << resource_hint << "\n";
    return exit_code::bad_input;
  }
}

std::string command_line(const std::string& program, int argc, char** argv) {
  std::string command = program;
  for (int k = 1; k < argc; ++k) command += std::string(" ") + argv[k];
  return command;
}

std::string json_number(double x) {
  if (!std::isfinite(x)) return "null";
  std::ostringstream out;
  out.precision(6);  // the default float format: %.6g
  out << x;
  return out.str();
}

std::string json_string(const std::string& text) {
  std::string out = "\"";
  for (const char c : text) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (static_cast<unsigned char>(c) < 0x20) {
      char escaped[8];
      std::snprintf(escaped, sizeof escaped, "\\u%04x", unsigned(static_cast<unsigned char>(c)));
      out += escaped;
    } else {
      out += c;
    }
  }
  return out + "\"";
}

}  // namespace tiledqr
