// searcher-sim drive: the JSON-lines protocol on stdin and stdout.
#include <limits>

#include "commands.hpp"
#include "hpsearch/simulator/drive.hpp"

namespace hpsearch::sim_cli {
namespace {

constexpr const char* kAbout = R"(searcher-sim drive --config FILE [--seed N] [--explain]

Runs one search as a JSON-lines state machine: each line on stdin is one event, and each is
answered by exactly one line on stdout (flushed at once). Lengths are absolute: validate_after
with length L means "train until the trial's total trained length is L, then validate".

Events (in) and answers (out):
  {"event":"initial_operations"}
      -> {"operations":[...]}                  once, first
  {"event":"trial_created","request_id":U}
      -> {"operations":[...]}                  the trial of a create operation now exists
  {"event":"validation_completed","request_id":U,"metric":0.25,"length":100}
      -> {"operations":[...]}                  the outstanding validate_after is done
  {"event":"trial_progress","request_id":U,"units":50}
      -> {"operations":[]}                     units trained so far (feeds progress only)
  {"event":"trial_exited_early","request_id":U,"reason":"errored"}
      -> {"operations":[...]}                  reasons: errored, user_canceled, invalid_hp,
                                               init_invalid_hp, user_requested_stop
  {"event":"trial_closed","request_id":U}
      -> {"operations":[...]}                  the trial's process is gone for good
  {"event":"progress"}                -> {"progress":0.42}
  {"event":"snapshot"}                -> {"snapshot":{...}}
  {"event":"restore","snapshot":{...}} -> {"restored":true}

Operations (out):
  {"type":"create","request_id":"ac0a7f8c-2faa-4497-b5a6-16b7c0cc21d8","trial_seed":441365315,
   "hparams":{"lr":0.01}}
  {"type":"validate_after","request_id":"ac0a7f8c-2faa-4497-b5a6-16b7c0cc21d8","length":100}
  {"type":"close","request_id":"ac0a7f8c-2faa-4497-b5a6-16b7c0cc21d8"}
  {"type":"shutdown","cancel":false,"failure":false}

U is a lowercase canonical UUID. Metrics are JSON numbers; the strings "Infinity",
"-Infinity" and "NaN" stand for those values. Report trial_created before anything else about
a trial, and trial_exited_early (then trial_closed) for a trial that stops before its
operations are done. A line that is malformed or not allowed now is answered with
{"error":"..."}, the searcher is left unchanged, and the session goes on. So is a line
longer than --max-line-bytes (its rest is read and dropped, never held) or nested deeper
than 128 arrays and objects (docs/security.md).

)";

const cli::OptionSet& options() {
  static const cli::OptionSet set = [] {
    cli::OptionSet o("drive");
    o.value("--config", "FILE", "experiment config (YAML or JSON), required")
        .value("--seed", "N",
               "search seed in [0, 4294967295]; overrides reproducibility.experiment_seed")
        .flag(
            "--explain",
            "add \"explain\" to each validate_after and close that ASHA decided, e.g.\n"
            "{\"reason\":\"stopped\",\"rung\":0,\"length\":1000,\"rank\":7,\"of\":9,\"cutoff\":2,\n"
            " \"metric\":0.41,\"text\":\"ranked 7 of 9 at rung 0 (length 1000); only the\n"
            " top 2 continue\"}")
        .value("--max-line-bytes", "N",
               "longest input line accepted, in bytes (default 16777216, 16 MiB); a longer\n"
               "line is answered with an error and skipped. A restore line holds a whole\n"
               "snapshot (about 450 bytes per trial)")
        .flag("--help", "this text");
    return o;
  }();
  return set;
}

}  // namespace

std::string drive_help() {
  return kAbout + options().help();
}

SimCommand parse_drive(const std::vector<std::string>& args) {
  const cli::Args parsed = options().parse(args);
  if (parsed.flag("--help")) return TextCommand{drive_help()};
  // Flags are checked before the config is read, so a bad flag is reported as such.
  DriveCommand command;
  command.config = parsed.required("--config");
  command.seed = parsed.seed("--seed");
  command.options.explain = parsed.flag("--explain");
  command.options.limits.max_bytes =
      parsed.count("--max-line-bytes", 1, std::numeric_limits<std::size_t>::max() - 1)
          .value_or(kMaxJsonLineBytes);
  return command;
}

int run(const DriveCommand& command, const Io& io) {
  const Loaded loaded = load(command.config, command.seed);
  Searcher searcher =
      make_searcher(loaded.config.searcher, loaded.config.hyperparameters, loaded.seed);
  run_drive(searcher, io.in, io.out, command.options);
  return cli::kExitOk;
}

}  // namespace hpsearch::sim_cli
