#pragma once
// `--plots`: renders the PNGs with analysis/plot.py (matplotlib) from the CSV files of a run.

#include <string>

namespace nvlsim {

// The Python interpreter found when configuring (the system's /usr/bin/python3 first, where Debian's
// python3-matplotlib and python3-pandas are installed), and plot.py: ../share/nvlsim/plot.py from the
// running executable's folder, where both the build tree and `cmake --install` put it.
std::string python_interpreter();
std::string plot_script();

// Runs `python3 plot.py OUT_DIR`; returns its exit status, 127 when it could not be started.
int render_plots(const std::string& out_dir);

}  // namespace nvlsim
