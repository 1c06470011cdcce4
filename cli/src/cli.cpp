#include "hpsearch/cli/cli.hpp"

#include <algorithm>
#include <ostream>
#include <sstream>

namespace hpsearch::cli {

OptionSet& OptionSet::value(std::string name, std::string placeholder, std::string help) {
  options_.push_back({std::move(name), std::move(placeholder), std::move(help)});
  return *this;
}

OptionSet& OptionSet::flag(std::string name, std::string help) {
  options_.push_back({std::move(name), "", std::move(help)});
  return *this;
}

OptionSet& OptionSet::repeatable(std::string name, std::string placeholder, std::string help) {
  options_.push_back({std::move(name), std::move(placeholder), std::move(help), true});
  return *this;
}

OptionSet& OptionSet::argument(std::string placeholder, std::string help) {
  arguments_.push_back({"", std::move(placeholder), std::move(help)});
  return *this;
}

OptionSet& OptionSet::heading(std::string text) {
  options_.push_back({"", "", std::move(text)});
  return *this;
}

OptionSet& OptionSet::add(const OptionSet& group) {
  options_.insert(options_.end(), group.options_.begin(), group.options_.end());
  arguments_.insert(arguments_.end(), group.arguments_.begin(), group.arguments_.end());
  return *this;
}

OptionSet& OptionSet::remove(const std::string& name) {
  std::erase_if(options_, [&](const Option& o) { return o.name == name; });
  return *this;
}

const Option* OptionSet::find(const std::string& name) const {
  const auto it = std::find_if(options_.begin(), options_.end(),
                               [&](const Option& o) { return !o.name.empty() && o.name == name; });
  return it == options_.end() ? nullptr : &*it;
}

Args OptionSet::parse(const std::vector<std::string>& args) const {
  Args parsed;
  for (const Option& o : options_) {
    if (!o.placeholder.empty()) parsed.placeholders_[o.name] = o.placeholder;
  }
  for (const Option& a : arguments_) parsed.argument_help_[a.placeholder] = a.help;
  std::size_t positional = 0;
  for (std::size_t i = 0; i < args.size(); ++i) {
    std::string name = args[i];
    if (!name.starts_with("-") || name == "-") {
      if (positional >= arguments_.size()) {
        std::string takes;
        for (const Option& a : arguments_) takes += " " + a.placeholder;
        throw UsageError("unexpected argument '" + name + "' (" + command_ +
                         (takes.empty() ? " takes no argument, only options" : " takes" + takes) +
                         ")");
      }
      parsed.arguments_[arguments_[positional++].placeholder] = name;
      continue;
    }
    std::optional<std::string> given;
    if (const auto eq = name.find('='); name.starts_with("--") && eq != std::string::npos) {
      given = name.substr(eq + 1);
      name = name.substr(0, eq);
    }
    const Option* option = find(name);
    if (option != nullptr && option->placeholder.empty()) {
      if (given) throw UsageError(name + ": takes no value, got '" + args[i] + "'");
      parsed.flags_.insert(name);
    } else if (option != nullptr) {
      if (!given) {
        if (i + 1 >= args.size()) throw UsageError(name + ": missing value");
        given = args[++i];
      }
      if (option->repeatable) {
        parsed.repeated_[name].push_back(*given);
        continue;
      }
      if (parsed.values_.contains(name)) throw UsageError(name + ": given twice");
      parsed.values_[name] = *given;
    } else {
      // Value options first, then flags, each in name order.
      std::set<std::string> values;
      std::set<std::string> flags;
      for (const Option& o : options_) {
        if (!o.name.empty()) (o.placeholder.empty() ? flags : values).insert(o.name);
      }
      std::string names;
      for (const std::set<std::string>* kind : {&values, &flags}) {
        for (const std::string& n : *kind) names += (names.empty() ? "" : ", ") + n;
      }
      throw UsageError("unknown option '" + args[i] + "' (options of " + command_ + ": " + names +
                       ")");
    }
  }
  return parsed;
}

namespace {

using Rows = std::vector<std::pair<std::string, std::string>>;

// Text starts in one column after the heads; a head longer than max_head has its text on the
// lines below instead of pushing every column to the right.
std::size_t column_of(const Rows& rows, std::size_t max_head, std::size_t min_width = 0) {
  std::size_t width = min_width;
  for (const auto& [head, text] : rows) {
    if (head.size() <= max_head) width = std::max(width, head.size());
  }
  return width;
}

void put_row(std::ostream& out, const std::string& head, const std::string& text,
             std::size_t width) {
  std::istringstream lines(text);
  std::string line;
  if (head.size() > width) {
    out << "  " << head << '\n';
  } else if (!std::getline(lines, line)) {
    out << "  " << head << '\n';
  } else {
    out << "  " << head << std::string(width - head.size(), ' ') << "  " << line << '\n';
  }
  while (std::getline(lines, line)) out << std::string(2 + width + 2, ' ') << line << '\n';
}

}  // namespace

std::string columns(const Rows& rows, std::size_t max_head, std::size_t min_width) {
  const std::size_t width = column_of(rows, max_head, min_width);
  std::ostringstream out;
  for (const auto& [head, text] : rows) put_row(out, head, text, width);
  return out.str();
}

std::string OptionSet::help(const std::string& title) const {
  std::ostringstream out;
  if (!arguments_.empty()) {
    Rows rows;
    for (const Option& a : arguments_) rows.emplace_back(a.placeholder, a.help);
    out << "Arguments:\n" << columns(rows) << '\n';
  }
  const auto head_of = [](const Option& o) {
    return o.name + (o.placeholder.empty() ? "" : " " + o.placeholder);
  };
  Rows rows;
  for (const Option& o : options_) {
    if (!o.name.empty()) rows.emplace_back(head_of(o), o.help);
  }
  // One column for every option of the command, headings included.
  const std::size_t width = column_of(rows, 24);
  out << title << '\n';
  for (const Option& o : options_) {
    if (o.name.empty()) {
      out << '\n' << o.help << '\n';
    } else {
      put_row(out, head_of(o), o.help, width);
    }
  }
  return out.str();
}

std::optional<std::string> Args::value(const std::string& name) const {
  const auto it = values_.find(name);
  return it == values_.end() ? std::nullopt : std::optional<std::string>(it->second);
}

std::vector<std::string> Args::all(const std::string& name) const {
  const auto it = repeated_.find(name);
  return it == repeated_.end() ? std::vector<std::string>{} : it->second;
}

std::string Args::argument(const std::string& placeholder) const {
  if (const auto it = arguments_.find(placeholder); it != arguments_.end()) return it->second;
  const auto help = argument_help_.find(placeholder);
  throw UsageError(placeholder + " is required" +
                   (help == argument_help_.end() ? "" : " (" + help->second + ")"));
}

std::string Args::required(const std::string& name) const {
  if (const auto it = values_.find(name); it != values_.end()) return it->second;
  const auto placeholder = placeholders_.find(name);
  throw UsageError(name + (placeholder == placeholders_.end() ? "" : " " + placeholder->second) +
                   " is required");
}

std::optional<std::uint64_t> Args::count(const std::string& name, std::uint64_t low,
                                         std::uint64_t high) const {
  const std::optional<std::string> text = value(name);
  return text ? std::optional<std::uint64_t>(parse_count(name, *text, low, high)) : std::nullopt;
}

std::optional<std::uint32_t> Args::seed(const std::string& name) const {
  const std::optional<std::uint64_t> v = count(name, 0, 4294967295U);
  return v ? std::optional<std::uint32_t>(static_cast<std::uint32_t>(*v)) : std::nullopt;
}

std::optional<double> Args::number(const std::string& name) const {
  const std::optional<std::string> text = value(name);
  if (!text) return std::nullopt;
  const std::optional<double> v = parse_finite_number(*text);
  if (!v) throw UsageError(name + ": must be a number, got '" + *text + "'");
  return v;
}

std::optional<double> Args::nonnegative(const std::string& name) const {
  const std::optional<std::string> text = value(name);
  return text ? std::optional<double>(parse_nonnegative(name, *text)) : std::nullopt;
}

std::optional<double> Args::probability(const std::string& name) const {
  const std::optional<double> v = nonnegative(name);
  if (v && *v > 1) {
    throw UsageError(name + ": must be a probability in [0, 1], got '" + *value(name) + "'");
  }
  return v;
}

std::vector<std::string> Args::list(const std::string& name) const {
  std::vector<std::string> items;
  if (const std::optional<std::string> text = value(name)) {
    std::istringstream stream(*text);
    for (std::string item; std::getline(stream, item, ',');) items.push_back(item);
  }
  return items;
}

ProgressBar::~ProgressBar() {
  if (enabled_ && drawn_) err_ << "\r\033[K" << std::flush;
}

void ProgressBar::draw(double progress, double now) {
  if (!enabled_) return;
  const int percent = static_cast<int>(std::clamp(progress, 0.0, 1.0) * 100);
  if (drawn_ && percent == last_percent_) return;
  drawn_ = true;
  last_percent_ = percent;
  const int filled = percent * 30 / 100;
  err_ << "\r" << label_ << " [" << std::string(static_cast<std::size_t>(filled), '#')
       << std::string(static_cast<std::size_t>(30 - filled), '.') << "] " << percent << '%';
  if (now > 0) err_ << "  virtual time " << static_cast<long long>(now) << " s";
  err_ << std::flush;
}

}  // namespace hpsearch::cli
