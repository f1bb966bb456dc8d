// The plot writers' shared machinery (see plot_support.hpp). One gnuplot process per plot
// keeps failures attributable; its stderr goes to a side file that ends up in the error
// message.
#include "analysis/plot_support.hpp"

#include <fcntl.h>
#include <pthread.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <stdexcept>
#include <system_error>

#include "analysis/plots.hpp"
#include "sim/atomic_file.hpp"
#include "sim/errors.hpp"
#include "sim/units.hpp"

namespace gcsim::analysis::plotting {

namespace {

namespace fs = std::filesystem;

#ifdef GCSIM_GNUPLOT
constexpr const char* GNUPLOT = GCSIM_GNUPLOT;
#else
constexpr const char* GNUPLOT = "gnuplot";
#endif

// Writing to a gnuplot that has already exited would raise SIGPIPE and kill the whole
// process. Blocking it in this thread turns that into a failed write (we then report the
// missing PNG); a SIGPIPE left pending is consumed before the old mask is restored.
class SigpipeBlock {
 public:
  SigpipeBlock() {
    sigemptyset(&pipe_);
    sigaddset(&pipe_, SIGPIPE);
    pthread_sigmask(SIG_BLOCK, &pipe_, &old_);
  }
  ~SigpipeBlock() {
    sigset_t pending;
    sigpending(&pending);
    if (sigismember(&pending, SIGPIPE) == 1 && sigismember(&old_, SIGPIPE) == 0) {
      const timespec zero{0, 0};
      while (sigtimedwait(&pipe_, nullptr, &zero) < 0 && errno == EINTR) {
      }
    }
    pthread_sigmask(SIG_SETMASK, &old_, nullptr);
  }
  SigpipeBlock(const SigpipeBlock&) = delete;
  SigpipeBlock& operator=(const SigpipeBlock&) = delete;

 private:
  sigset_t pipe_{};
  sigset_t old_{};
};

// The first 2000 bytes gnuplot wrote to its stderr file.
std::string read_small_file(int fd) {
  std::string text(2001, '\0');
  const ssize_t n = pread(fd, text.data(), text.size(), 0);
  text.resize(n > 0 ? static_cast<std::size_t>(n) : 0);
  if (text.size() > 2000) text = text.substr(0, 2000) + "...";
  while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.pop_back();
  return text;
}

// A gnuplot child whose stdin is a pipe from us and whose stdout and stderr are the two
// given descriptors. gnuplot writes the PNG to its stdout (no `set output` file), so it
// never opens a path: the PNG and the error text land in files AtomicFile created (fresh
// names, O_EXCL | O_NOFOLLOW), and no shell is involved.
class GnuplotProcess {
 public:
  GnuplotProcess(int stdout_fd, int stderr_fd) {
    int pipe_fds[2];
    if (pipe2(pipe_fds, O_CLOEXEC) != 0) throw std::runtime_error(std::string("pipe: ") + std::strerror(errno));
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    // dup2 onto 0, 1 and 2 clears close-on-exec there; every other descriptor of ours
    // (the originals included) is close-on-exec and does not reach gnuplot.
    posix_spawn_file_actions_adddup2(&actions, pipe_fds[0], STDIN_FILENO);
    posix_spawn_file_actions_adddup2(&actions, stdout_fd, STDOUT_FILENO);
    posix_spawn_file_actions_adddup2(&actions, stderr_fd, STDERR_FILENO);
    char* argv[] = {const_cast<char*>(GNUPLOT), nullptr};
    const int rc = posix_spawnp(&pid_, GNUPLOT, &actions, nullptr, argv, environ);
    posix_spawn_file_actions_destroy(&actions);
    close(pipe_fds[0]);
    if (rc != 0) {
      close(pipe_fds[1]);
      throw std::runtime_error(std::string(GNUPLOT) + ": " + std::strerror(rc));
    }
    input_ = fdopen(pipe_fds[1], "w");
    if (input_ == nullptr) {
      close(pipe_fds[1]);
      const int err = errno;
      wait();  // its input is closed: it exits
      throw std::runtime_error(std::string("fdopen: ") + std::strerror(err));
    }
  }
  // Reached with the child still running only when plotting failed: stop it rather than
  // wait for an end of input that may never come.
  ~GnuplotProcess() {
    if (pid_ > 0) kill(pid_, SIGKILL);
    wait();
  }
  GnuplotProcess(const GnuplotProcess&) = delete;
  GnuplotProcess& operator=(const GnuplotProcess&) = delete;

  // Handed to Gnuplot, which fcloses it when destroyed: gnuplot then sees end of input.
  FILE* input() const { return input_; }
  void wait() {
    if (pid_ <= 0) return;
    int status = 0;
    while (waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
    }
    pid_ = -1;
  }

 private:
  pid_t pid_ = -1;
  FILE* input_ = nullptr;
};

}  // namespace

TimeUnit time_unit_for(double span_s) {
  if (span_s < 2 * 3600.0) return {60.0, "minutes"};
  if (span_s < 3 * 86400.0) return {3600.0, "hours"};
  return {86400.0, "days"};
}

std::string gp_quote(const std::string& s) { return gnuplot_text(s); }

std::string plot_file(const fs::path& dir, const std::string& name, PlotFormat format,
                      const std::function<void(Gnuplot&)>& draw, int height_px) {
  const fs::path final_path = dir / (name + (format == PlotFormat::Svg ? ".svg" : ".png"));
  sim::AtomicFile png(final_path.string());
  sim::AtomicFile errors((dir / (name + ".gnuplot-stderr")).string());  // never committed
  {
    SigpipeBlock block;
    try {
      GnuplotProcess process(png.fd(), errors.fd());
      {
        Gnuplot gp(process.input());
        gp << "set terminal " << (format == PlotFormat::Svg ? "svg" : "pngcairo") << " noenhanced size " << WIDTH_PX << ","
           << height_px << " font 'sans,10'\n";
        gp << "set output\n";  // standard output: the picture file
        gp << "set grid\n";
        draw(gp);
        gp << "unset output\n";
        gp << "exit\n";
      }  // ~Gnuplot flushes and closes the pipe
      process.wait();  // gnuplot has exited: the picture is complete
    } catch (const std::exception& e) {
      throw Error(std::string("gnuplot failed to start for '") + final_path.string() + "': " + e.what());
    }
  }
  struct stat st {};
  const bool ok = fstat(png.fd(), &st) == 0 && st.st_size > 0;
  if (!ok) {
    const std::string stderr_text = read_small_file(errors.fd());
    throw Error("gnuplot failed to write '" + final_path.string() + "' (gnuplot: " + GNUPLOT + ")" +
                (stderr_text.empty() ? "" : ": " + stderr_text));
  }
  png.commit();
  return final_path.string();
}
void set_time_area(Gnuplot& gp, double end_s, const TimeUnit& unit) {
  gp << "set lmargin at screen " << static_cast<double>(PLOT_LEFT_PX) / WIDTH_PX << "\n";
  gp << "set rmargin at screen " << static_cast<double>(PLOT_RIGHT_PX) / WIDTH_PX << "\n";
  gp << "set xlabel " << gp_quote(std::string("time (") + unit.name + ")") << "\n";
  gp << "set xrange [0:" << std::max(end_s / unit.seconds, 1e-9) << "]\n";
}

PixelSeries pixel_series(const std::vector<StepPoint>& steps, double end_s, double unit_s) {
  PixelSeries out;
  for (const PixelColumn& c : reduce_steps_to_pixels(steps, 0.0, end_s, PLOT_COLUMNS)) {
    if (!c.has_value) continue;
    out.line.emplace_back(c.from_s / unit_s, c.max);
    out.mean.emplace_back(c.from_s / unit_s, c.mean);
    if (c.min < c.max) out.band.emplace_back(c.from_s / unit_s, c.to_s / unit_s, c.min, c.max);
  }
  if (!out.line.empty()) out.line.emplace_back(end_s / unit_s, out.line.back().second);
  if (!out.mean.empty()) out.mean.emplace_back(end_s / unit_s, out.mean.back().second);
  return out;
}

std::string gp_number(double v) { return gcsim::units::shortest_text(v); }

std::string tics_command(const std::string& axis, const std::vector<Tick>& ticks) {
  std::string out = "set " + axis + "tics (";
  for (std::size_t i = 0; i < ticks.size(); ++i)
    out += (i > 0 ? ", " : "") + gp_quote(ticks[i].label) + " " + gp_number(ticks[i].value);
  return out + ")\n";
}

void set_y_ticks(Gnuplot& gp, const std::vector<Tick>& ticks, double data_top, double headroom) {
  // The axis ends just above the data; ticks beyond it are left out, unless that would leave
  // only the one at 0 (the axis then ends at the first tick above the data).
  double top = data_top * (1 + headroom);
  std::vector<Tick> shown;
  for (const Tick& t : ticks)
    if (t.value <= top) shown.push_back(t);
  if (shown.size() < 2) {
    shown = ticks;
    top = std::max(top, ticks.empty() ? 0.0 : ticks.back().value);
  }
  if (!(top > 0) || !std::isfinite(top)) top = 1;  // no data: an empty frame from 0 to 1
  gp << "set yrange [0:" << gp_number(top) << "]\n";
  gp << tics_command("y", shown);
}

void set_log_time_x(Gnuplot& gp, double lo_s, double hi_s) {
  gp << "set logscale x\n";
  gp << "set xrange [" << gp_number(lo_s) << ":" << gp_number(hi_s) << "]\n";
  gp << tics_command("x", log_time_ticks(lo_s, hi_s));
}

}  // namespace gcsim::analysis::plotting
