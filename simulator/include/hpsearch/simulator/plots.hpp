#pragma once
/// \file
/// SVG plots of simulated runs, written as plain text (standalone files a browser shows):
/// best-so-far against time, a worker Gantt chart coloured by trial outcome, rung occupancy
/// over time, and compare's quartile bands.

#include <iosfwd>
#include <optional>
#include <string>

#include "hpsearch/simulator/compare.hpp"
#include "hpsearch/simulator/engine.hpp"

namespace hpsearch {

/// Best metric (or regret, when `optimum` is given) among trials at max_length, against time.
void write_best_so_far_svg(const RunSummary& summary, std::optional<double> optimum,
                           const std::string& title, std::ostream& out);

/// One row per worker, one bar per launch of a trial, coloured by how the trial ended; a bar
/// that ended in a crash has a dark outline. Needs a summary recorded with a timeline. Runs
/// with more than `max_spans` launches get a note instead of bars (the file would be huge).
void write_worker_gantt_svg(const RunSummary& summary, std::uint64_t workers,
                            const std::string& title, std::ostream& out,
                            std::size_t max_spans = 100000);

/// How many trials have completed a validation at each length, against time (the ASHA
/// paper's "configurations trained to R" curve, one line per rung length).
void write_rung_occupancy_svg(const RunSummary& summary, const std::string& title,
                              std::ostream& out);

/// Median line and [q1, q3] band per config over CompareResult::curve_times.
void write_compare_svg(const CompareResult& result, const std::string& title, std::ostream& out);

}  // namespace hpsearch
