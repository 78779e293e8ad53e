#pragma once
// `--plots`: renders the PNGs with the matplotlib scripts beside the binary, analysis/plot.py from the CSV
// files of a run and analysis/sweep_plot.py from a sweep's sweep_summary.csv.

#include <string>
#include <vector>

namespace nvlsim {

// The Python interpreter found when configuring (the system's /usr/bin/python3 first, where Debian's
// python3-matplotlib and python3-pandas are installed), and the scripts: ../share/nvlsim/NAME from the
// running executable's folder, where both the build tree and `cmake --install` put them.
std::string python_interpreter();
std::string plot_script();
std::string sweep_plot_script();

// Runs `python3 plot.py OUT_DIR`; returns its exit status, 127 when it could not be started.
int render_plots(const std::string& out_dir);

// Runs `python3 sweep_plot.py SWEEP_DIR --out SWEEP_DIR/plots`; returns its exit status, as above.
int render_sweep_plots(const std::string& sweep_dir);

// The command line render_sweep_plots runs, for its error message.
std::vector<std::string> sweep_plots_command(const std::string& sweep_dir);

}  // namespace nvlsim
