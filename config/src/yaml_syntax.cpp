// YAML syntax errors in the config's terms (yaml_syntax.hpp). The parser says what rule broke
// ("illegal map value"); a person needs what is at that place and what should be there, and
// often the place is elsewhere: the tab in an indentation, the key indented too far, the '{'
// that was never closed. This reads the text around the parser's mark to say so. It only
// explains an error the parser found: nothing here decides whether a file is valid YAML.
#include "yaml_syntax.hpp"

#include <algorithm>
#include <optional>
#include <vector>

namespace hpsearch::config_detail {
namespace {

constexpr std::size_t kNpos = std::string_view::npos;

// The parser's messages this explains (yaml-cpp 0.7's ErrorMsg, yaml-cpp/exceptions.h). A
// message it does not know gets a general explanation (the place and what is there).
constexpr std::string_view kMapValue = "illegal map value";
constexpr std::string_view kMapKey = "illegal map key";
constexpr std::string_view kBlockEntry = "illegal block entry";
constexpr std::string_view kTabInIndentation = "illegal tab when looking for indentation";
constexpr std::string_view kEndOfMap = "end of map not found";
constexpr std::string_view kEndOfSeq = "end of sequence not found";
constexpr std::string_view kEndOfMapFlow = "end of map flow not found";
constexpr std::string_view kEndOfSeqFlow = "end of sequence flow not found";
constexpr std::string_view kFlowEnd = "illegal flow end";
constexpr std::string_view kEofInScalar = "illegal EOF in scalar";
constexpr std::string_view kDocInScalar = "illegal document indicator in scalar";
constexpr std::string_view kInvalidEscape = "unknown escape character: ";
constexpr std::string_view kInvalidHex = "bad character found while scanning hex number";
constexpr std::string_view kInvalidUnicode = "invalid unicode: ";
constexpr std::string_view kUnknownAnchor = "the referenced anchor is not defined";
constexpr std::string_view kAnchorNotFound = "anchor not found after &";
constexpr std::string_view kAliasNotFound = "alias not found after *";
constexpr std::string_view kCharInAnchor = "illegal character found while scanning anchor";
constexpr std::string_view kCharInAlias = "illegal character found while scanning alias";
constexpr std::string_view kMultipleAnchors = "cannot assign multiple anchors to the same node";
constexpr std::string_view kMultipleTags = "cannot assign multiple tags to the same node";
constexpr std::string_view kMultipleAliases = "cannot assign multiple aliases to the same node";
constexpr std::string_view kAliasContent = "aliases can't have any content, *including* tags";
constexpr std::string_view kEndOfVerbatimTag = "end of verbatim tag not found";
constexpr std::string_view kCharInTagHandle = "illegal character found while scanning tag handle";
constexpr std::string_view kTagWithNoSuffix = "tag handle with no suffix";
constexpr std::string_view kZeroIndentInBlock = "cannot set zero indentation for a block scalar";
constexpr std::string_view kCharInBlock = "unexpected character in block scalar";
constexpr std::string_view kUnknownToken = "unknown token";

// The text as lines, without their '\n' (and a '\r' before it).
class Lines {
 public:
  explicit Lines(std::string_view text) : text_(text) {
    std::size_t start = 0;
    while (true) {
      const std::size_t end = text.find('\n', start);
      std::string_view line = text.substr(start, end == kNpos ? kNpos : end - start);
      if (line.ends_with('\r')) line.remove_suffix(1);
      lines_.push_back(line);
      offsets_.push_back(start);
      if (end == kNpos) break;
      start = end + 1;
    }
  }
  [[nodiscard]] std::size_t size() const { return lines_.size(); }
  [[nodiscard]] std::string_view operator[](std::size_t i) const {
    return i < lines_.size() ? lines_[i] : std::string_view();
  }
  // Whether nothing but white space follows byte `byte` of line `line`.
  [[nodiscard]] bool at_end(std::size_t line, std::size_t byte) const {
    if (line >= lines_.size()) return true;
    const std::size_t offset = offsets_[line] + byte;
    return offset >= text_.size() || text_.find_first_not_of(" \t\r\n", offset) == kNpos;
  }

 private:
  std::string_view text_;
  std::vector<std::string_view> lines_;
  std::vector<std::size_t> offsets_;
};

// Columns count characters (UTF-8), as the parser's marks and the config's other errors do.
bool continuation_byte(char c) {
  return (static_cast<unsigned char>(c) & 0xC0U) == 0x80U;
}
std::size_t byte_of_column(std::string_view line, std::size_t column) {
  std::size_t seen = 0;
  for (std::size_t byte = 0; byte < line.size(); ++byte) {
    if (continuation_byte(line[byte])) continue;
    if (seen == column) return byte;
    ++seen;
  }
  return line.size() + (column - seen);  // past the line's end (its '\n', or the file's end)
}
std::size_t column_of_byte(std::string_view line, std::size_t byte) {
  std::size_t column = 0;
  for (std::size_t i = 0; i < std::min(byte, line.size()); ++i) {
    if (!continuation_byte(line[i])) ++column;
  }
  return column + (byte > line.size() ? byte - line.size() : 0);
}

bool blank(char c) {
  return c == ' ' || c == '\t';
}
bool flow_indicator(char c) {
  return c == ',' || c == '[' || c == ']' || c == '{' || c == '}';
}

// Text for a message on one printable line: a control character as an escape (\t, \x01).
std::string printable(std::string_view text) {
  std::string out;
  for (const char c : text) {
    const auto byte = static_cast<unsigned char>(c);
    if (c == '\t') {
      out += "\\t";
    } else if (byte < 0x20 || byte == 0x7f) {
      constexpr std::string_view kHex = "0123456789abcdef";
      out += "\\x";
      out += kHex[byte >> 4U];
      out += kHex[byte & 0xfU];
    } else {
      out += c;
    }
  }
  return out;
}

// Text for a message, quoted, printable and cut at 40 bytes (not inside a character).
std::string shown(std::string_view text) {
  constexpr std::size_t kLongest = 40;
  if (text.size() <= kLongest) return "'" + printable(text) + "'";
  std::size_t cut = kLongest;
  while (cut > 0 && continuation_byte(text[cut])) --cut;
  return "'" + printable(text.substr(0, cut)) + "...'";
}

std::string_view trimmed(std::string_view text) {
  while (!text.empty() && blank(text.front())) text.remove_prefix(1);
  while (!text.empty() && blank(text.back())) text.remove_suffix(1);
  return text;
}

// The token at `byte`: an indicator alone, an anchor, alias or tag with its name, or a plain
// word up to a blank, a flow indicator or ': '.
std::string_view token_at(std::string_view line, std::size_t byte) {
  if (byte >= line.size()) return {};
  const char c = line[byte];
  std::size_t end = byte + 1;
  if (c == '&' || c == '*' || c == '!' ||
      (std::string_view(":#|>'\"%@`?-").find(c) == kNpos && !flow_indicator(c))) {
    while (end < line.size() && !blank(line[end]) && !flow_indicator(line[end]) &&
           !(line[end] == ':' && (end + 1 == line.size() || blank(line[end + 1])))) {
      ++end;
    }
  }
  return line.substr(byte, end - byte);
}

// Where a key ends on a line that starts (at `from`) with one: its ':' followed by a blank or
// the end of the line, after a quoted key's closing quote; kNpos if there is none.
std::size_t key_colon(std::string_view line, std::size_t from) {
  std::size_t i = from;
  if (i < line.size() && (line[i] == '"' || line[i] == '\'')) {
    const std::size_t close = line.find(line[i], i + 1);
    if (close == kNpos) return kNpos;
    i = close + 1;
  }
  for (; i < line.size(); ++i) {
    if (line[i] == '#' && i > 0 && blank(line[i - 1])) return kNpos;
    if (line[i] == ':' && (i + 1 == line.size() || blank(line[i + 1]))) return i;
  }
  return kNpos;
}

// The key a line starts with at `from` ("" if it does not start with one).
std::string_view key_at(std::string_view line, std::size_t from) {
  const std::size_t colon = key_colon(line, from);
  return colon == kNpos ? std::string_view() : trimmed(line.substr(from, colon - from));
}

bool item_at(std::string_view line, std::size_t from) {
  return from < line.size() && line[from] == '-' &&
         (from + 1 == line.size() || blank(line[from + 1]));
}

std::size_t indentation(std::string_view line) {
  const std::size_t first = line.find_first_not_of(' ');
  return first == kNpos ? line.size() : first;
}

// The lines a line is nested in: from the one before it back to the file's first column, each
// less indented than those after it (blank lines and comments aside).
struct Enclosing {
  std::size_t line;
  std::size_t indent;
  bool item;               // a '- ' item of a list
  std::string_view key;    // else the key it starts with, if any
  std::string_view start;  // else its first token
};
std::vector<Enclosing> enclosing(const Lines& lines, std::size_t line) {
  std::vector<Enclosing> chain;
  for (std::size_t i = std::min(line, lines.size()); i-- > 0;) {
    const std::string_view text = lines[i];
    const std::size_t indent = indentation(text);
    if (indent == text.size() || text[indent] == '#' || text[indent] == '\t') continue;
    if (!chain.empty() && indent >= chain.back().indent) continue;
    chain.push_back(
        {i, indent, item_at(text, indent), key_at(text, indent), token_at(text, indent)});
    if (indent == 0) break;
  }
  return chain;
}

// "a key at column 3 (as 'metric', line 3) or a '- ' item at column 1 (as on line 1)".
std::string alternatives(const std::vector<Enclosing>& chain) {
  std::string text;
  for (std::size_t k = 0; k < chain.size(); ++k) {
    const Enclosing& e = chain[k];
    if (k > 0) text += k + 1 == chain.size() ? " or " : ", ";
    const std::string column = std::to_string(e.indent + 1);
    const std::string line = std::to_string(e.line + 1);
    if (e.item) {
      text += "a '- ' item at column " + column + " (as on line " + line + ")";
    } else if (!e.key.empty()) {
      text += "a key at column " + column + " (as " + shown(e.key) + ", line " + line + ")";
    } else {
      text += "column " + column + " (as " + shown(e.start) + ", line " + line + ")";
    }
  }
  return text;
}

// What starts at `byte` of a line: "a '- ' item", "the key 'name'" or the token.
std::string entry_at(std::string_view line, std::size_t byte) {
  if (item_at(line, byte)) return "a '- ' item";
  const std::string_view key = key_at(line, byte);
  if (!key.empty()) return "the key " + shown(key);
  return shown(token_at(line, byte));
}

// The flow collections ('[', '{') and the quoted string open at a place, from a light reading
// of the text before it: quoted strings, comments and block scalars are skipped, brackets count
// only where a value can start. Only used to say where something was opened.
struct Opened {
  char what;
  std::size_t line;
  std::size_t column;  // in characters
};
struct OpenAt {
  std::vector<Opened> flows;
  std::optional<Opened> quote;
};
OpenAt open_at(const Lines& lines, std::size_t end_line, std::size_t end_byte) {
  OpenAt open;
  std::optional<std::size_t> block_scalar;  // the indentation of a '|' or '>' value's key
  for (std::size_t i = 0; i <= end_line && i < lines.size(); ++i) {
    const std::string_view line = lines[i];
    const std::size_t end = i == end_line ? std::min(end_byte, line.size()) : line.size();
    const std::size_t indent = indentation(line);
    if (block_scalar) {
      if (indent == line.size() || indent > *block_scalar) continue;
      block_scalar.reset();
    }
    bool value_starts = true;  // at the line's start, after an indicator and a blank, ...
    for (std::size_t j = 0; j < end; ++j) {
      const char c = line[j];
      if (open.quote) {
        if (c == '\\' && open.quote->what == '"') {
          ++j;
        } else if (c == '\'' && open.quote->what == '\'' && j + 1 < line.size() &&
                   line[j + 1] == '\'') {
          ++j;
        } else if (c == open.quote->what) {
          open.quote.reset();
          value_starts = false;
        }
        continue;
      }
      if (blank(c)) continue;
      if (c == '#' && (j == 0 || blank(line[j - 1]))) break;
      const bool in_flow = !open.flows.empty();
      if (value_starts && (c == '"' || c == '\'')) {
        open.quote = Opened{c, i, column_of_byte(line, j)};
      } else if (value_starts && !in_flow && (c == '|' || c == '>')) {
        block_scalar = indent;
        break;
      } else if ((c == '[' || c == '{') && (value_starts || in_flow)) {
        open.flows.push_back({c, i, column_of_byte(line, j)});
        value_starts = true;
      } else if ((c == ']' || c == '}') && in_flow) {
        if (open.flows.back().what == (c == ']' ? '[' : '{')) open.flows.pop_back();
        value_starts = false;
      } else if (c == ',' && in_flow) {
        value_starts = true;
      } else if ((c == ':' || c == '-' || c == '?') &&
                 (j + 1 == line.size() || blank(line[j + 1]))) {
        value_starts = true;
      } else {
        value_starts = false;
      }
    }
  }
  return open;
}

std::string position(const Opened& o) {
  return std::to_string(o.line + 1) + ":" + std::to_string(o.column + 1);
}

// The innermost open '[' or '{' (`what`), if any.
std::optional<Opened> innermost(const OpenAt& open, char what) {
  for (auto it = open.flows.rbegin(); it != open.flows.rend(); ++it) {
    if (it->what == what) return *it;
  }
  return std::nullopt;
}

// Where a backslash escape that ends before `byte` starts (the last '\' before it), or kNpos.
std::size_t escape_start(std::string_view line, std::size_t byte) {
  const std::size_t at = line.rfind('\\', byte == 0 ? 0 : byte - 1);
  return at == kNpos || at >= byte ? kNpos : at;
}

class Explainer {
 public:
  Explainer(std::string_view text, std::size_t line, std::size_t column)
      : lines_(text), line_(line), text_(lines_[line]), byte_(byte_of_column(text_, column)) {}

  YamlSyntaxError explain(std::string_view message) {
    if (message == kTabInIndentation) return tab().value_or(general());
    if (message == kMapValue || message == kMapKey || message == kBlockEntry ||
        message == kEndOfMap || message == kEndOfSeq) {
      if (std::optional<YamlSyntaxError> tabbed = tab_on_this_line()) return *tabbed;
    }
    if (message == kMapValue) return map_value();
    if (message == kEndOfMap || message == kEndOfSeq) return misplaced(byte_);
    if (message == kBlockEntry) return block_entry();
    if (message == kMapKey) {
      return here(
          "found '?' (an explicit key) where no key can start, expected 'key: value' "
          "(quote a value that starts with '? ')");
    }
    if (message == kEndOfMapFlow) return unclosed('{', '}');
    if (message == kEndOfSeqFlow) return unclosed('[', ']');
    if (message == kFlowEnd) return flow_end();
    if (message == kEofInScalar || message == kDocInScalar) return unclosed_quote(message);
    if (message.starts_with(kInvalidEscape)) return bad_escape(message);
    if (message == kInvalidHex || message.starts_with(kInvalidUnicode)) return bad_hex();
    if (message == kUnknownAnchor) {
      const std::string_view alias = token_at(text_, byte_);
      return here("found the alias " + shown(alias) + ", expected an anchor " +
                  shown("&" + std::string(alias.substr(std::min<std::size_t>(1, alias.size())))) +
                  " defined before it (quote a value that starts with '*')");
    }
    if (message == kAnchorNotFound || message == kAliasNotFound) {
      const char sign = message == kAnchorNotFound ? '&' : '*';
      const std::size_t at = text_.rfind(sign, byte_ == 0 ? 0 : byte_ - 1);
      if (at != kNpos) byte_ = at;
      return here(std::string("found '") + sign + "' without a name, expected " +
                  (sign == '&' ? "an anchor's name after it, as in '&defaults'"
                               : "the name of an anchor after it, as in '*defaults'") +
                  " (quote a value that starts with '" + sign + "')");
    }
    if (message == kCharInAnchor || message == kCharInAlias) {
      return here("found " + found() + " in the name of " +
                  (message == kCharInAnchor ? "an anchor" : "an alias") +
                  ", expected the name to end with a blank, ',' or the end of the line");
    }
    if (message == kMultipleAnchors || message == kMultipleTags || message == kMultipleAliases) {
      const char* what = message == kMultipleAnchors ? "anchor"
                         : message == kMultipleTags  ? "tag"
                                                     : "alias";
      return here("found a second " + std::string(what) + " " + found() +
                  " on one value, expected " + "at most one " + what + " per value");
    }
    if (message == kAliasContent) {
      return here("found " + found() +
                  " with an alias, expected the alias alone: it stands for "
                  "the whole value");
    }
    if (message == kEndOfVerbatimTag || message == kCharInTagHandle ||
        message == kTagWithNoSuffix) {
      const std::size_t at = text_.rfind('!', byte_ == 0 ? 0 : byte_ - 1);
      if (at != kNpos) byte_ = at;
      return here("found the tag " + shown(token_at(text_, byte_)) +
                  ", expected a tag such as '!!str' or '!<tag:yaml.org,2002:str>' (quote a value "
                  "that starts with '!')");
    }
    if (message == kZeroIndentInBlock || message == kCharInBlock) return block_header();
    if (message == kUnknownToken) {
      const bool reserved = byte_ < text_.size() && (text_[byte_] == '@' || text_[byte_] == '`');
      return here("found " + found() + ", which cannot start a value" +
                  (reserved ? " ('@' and '`' are reserved in YAML)" : "") +
                  ", expected a value (quote it)");
    }
    return general();
  }

 private:
  YamlSyntaxError here(std::string message) const {
    return {line_, column_of_byte(text_, byte_), std::move(message)};
  }

  // What is at the error's place: "the end of the file", "the end of line 3", "a tab" or the
  // token quoted.
  std::string found() const {
    std::size_t at = byte_;
    while (at < text_.size() && text_[at] == ' ') ++at;  // what comes after a blank
    if (lines_.at_end(line_, at)) return "the end of the file";
    if (at >= text_.size()) return "the end of line " + std::to_string(line_ + 1);
    if (text_[at] == '\t') return "a tab";
    return shown(token_at(text_, at));
  }

  YamlSyntaxError general() const {
    return here("found " + found() + ", which YAML does not allow here");
  }

  static std::optional<std::size_t> leading_tab(std::string_view line) {
    const std::size_t first = line.find_first_not_of(" \t");
    const std::size_t tab = line.substr(0, first).find('\t');
    if (tab == kNpos) return std::nullopt;
    return tab;
  }

  YamlSyntaxError tab_at(std::size_t line, std::size_t byte) const {
    return {line, column_of_byte(lines_[line], byte),
            "found a tab in the indentation of line " + std::to_string(line + 1) +
                ", expected spaces: YAML indents with spaces only"};
  }

  std::optional<YamlSyntaxError> tab_on_this_line() const {
    if (const std::optional<std::size_t> tab = leading_tab(text_)) return tab_at(line_, *tab);
    return std::nullopt;
  }

  // The tab the parser met: on its line, else on the nearest line before it.
  std::optional<YamlSyntaxError> tab() const {
    for (std::size_t i = std::min(line_ + 1, lines_.size()); i-- > 0;) {
      if (const std::optional<std::size_t> at = leading_tab(lines_[i])) return tab_at(i, *at);
    }
    return std::nullopt;
  }

  // A ':' where no key can start: in a value ("key: value: more"), or after a key indented
  // past the line before it, which the parser took as that line's value going on.
  YamlSyntaxError map_value() {
    const std::size_t indent = indentation(text_);
    // 'x3:{type: double}': the first ': ' is in the value, the key's own ':' has no space.
    if (std::optional<YamlSyntaxError> tight = no_key_value(line_, indent, true)) return *tight;
    const std::size_t colon = key_colon(text_, indent);
    if (colon != kNpos && colon < byte_ && byte_ < text_.size() && text_[byte_] == ':') {
      std::string_view value = trimmed(text_.substr(colon + 1));
      if (const std::size_t comment = value.find(" #"); comment != kNpos)
        value = trimmed(value.substr(0, comment));
      return here("found ': ' inside the value " + shown(value) + " of the key " +
                  shown(key_at(text_, indent)) + ", expected a value without ': ' (quote it: \"" +
                  printable(value) + "\")");
    }
    const std::vector<Enclosing> chain = enclosing(lines_, line_);
    if (!chain.empty() && indent > chain.front().indent && indent < text_.size()) {
      byte_ = indent;
      const Enclosing& above = chain.front();
      return here("found " + entry_at(text_, indent) + " at column " + std::to_string(indent + 1) +
                  ", more indented than line " + std::to_string(above.line + 1) +
                  (above.key.empty() ? std::string() : " (" + shown(above.key) + ")") +
                  ", whose value it would go on; expected " + alternatives(chain));
    }
    // The line above holds no 'key: value' ('lr:0.1', 'description my run'): the parser read
    // it as text, and this line's key as going on with it.
    if (!chain.empty() && !chain.front().item && chain.front().key.empty()) {
      if (std::optional<YamlSyntaxError> above =
              no_key_value(chain.front().line, chain.front().indent, false))
        return *above;
    }
    return here(
        "found ':' where no key can start, expected " +
        (chain.empty() ? std::string("a key at the start of the line") : alternatives(chain)) +
        " (quote a value that holds ': ')");
  }

  // Line `line` (its text from `indent`) as what it is if it is no 'key: value': its first
  // word holds a ':' with no space after it ('lr:0.1'), or (unless `tight_only`) it has no ':'
  // at all. The error moves there.
  std::optional<YamlSyntaxError> no_key_value(std::size_t line, std::size_t indent,
                                              bool tight_only) {
    const std::string_view text = lines_[line];
    if (indent >= text.size() || item_at(text, indent)) return std::nullopt;
    const std::size_t word_end = std::min(text.find_first_of(" \t", indent), text.size());
    const std::size_t tight = text.find(':', indent);
    const bool has_tight = tight != kNpos && tight + 1 < word_end;
    const bool has_colon = key_colon(text, indent) != kNpos;
    if (!has_tight && (tight_only || has_colon)) return std::nullopt;
    line_ = line;
    text_ = text;
    byte_ = indent;
    std::string_view entry = trimmed(text.substr(indent));
    if (const std::size_t comment = entry.find(" #"); comment != kNpos)
      entry = trimmed(entry.substr(0, comment));
    if (has_tight) {
      const std::string spaced = std::string(text.substr(indent, tight + 1 - indent)) + " " +
                                 std::string(trimmed(text.substr(tight + 1)));
      return here("found " + shown(entry) +
                  ", which is no 'key: value', expected a space after the key's ':' (" +
                  shown(spaced) + ")");
    }
    return here("found " + shown(entry) +
                ", which is no 'key: value' (it has no ':'), expected a key, ': ' and its value");
  }

  // Something at an indentation where neither the mapping nor the list around it goes on.
  YamlSyntaxError misplaced(std::size_t at) {
    byte_ = at;
    if (at < text_.size() && at > indentation(text_)) {
      return here("found " + found() + " after the value before it on line " +
                  std::to_string(line_ + 1) +
                  ", expected the end of the line (a new key or item "
                  "starts a line of its own; quote a value that holds it)");
    }
    const std::vector<Enclosing> chain = enclosing(lines_, line_);
    if (at >= text_.size() || chain.empty()) return general();
    const std::size_t column = column_of_byte(text_, at);
    std::string where = "an indentation that no line above it has";
    for (const Enclosing& e : chain) {
      if (e.indent == column) {
        where = "where " + std::string(e.item ? "the list of line " : "the mapping of line ") +
                std::to_string(e.line + 1) + " has its " + (e.item ? "'- ' items" : "keys");
      }
    }
    return here("found " + entry_at(text_, at) + " at column " + std::to_string(column + 1) + ", " +
                where + "; expected " + alternatives(chain));
  }

  YamlSyntaxError block_entry() {
    const std::size_t indent = indentation(text_);
    if (byte_ > indent && byte_ < text_.size()) {
      const std::string_view key = key_at(text_, indent);
      return here("found a '- ' item on the line of " +
                  (key.empty() ? std::string("another value") : "the key " + shown(key)) +
                  ", expected the list's items on lines of their own, below it (quote a value "
                  "that starts with '- ')");
    }
    return misplaced(byte_);
  }

  YamlSyntaxError unclosed(char open, char close) {
    std::optional<Opened> opener = innermost(open_at(lines_, line_, byte_), open);
    if (!opener) {
      // The parser may place the error before the bracket it found open (at the start of its
      // line, for a file that ends inside it): the one still open at the end of the file.
      const std::size_t last = lines_.size() - 1;
      opener = innermost(open_at(lines_, last, kNpos), open);
      if (opener) {
        line_ = last;
        text_ = lines_[last];
        byte_ = text_.size();
      }
    }
    return here("found " + found() + ", expected ',' or '" + close + "'" +
                (opener ? " closing the '" + std::string(1, open) + "' at " + position(*opener)
                        : std::string(" closing the '") + open + "' before it"));
  }

  YamlSyntaxError flow_end() const {
    const char c = byte_ < text_.size() ? text_[byte_] : ']';
    const OpenAt open = open_at(lines_, line_, byte_);
    if (open.flows.empty()) {
      return here("found '" + std::string(1, c) + "' with no '" + (c == ']' ? "[" : "{") +
                  "' open, expected a value (quote a value that holds '" + c + "')");
    }
    const Opened& o = open.flows.back();
    return here("found '" + std::string(1, c) + "', expected ',' or '" +
                (o.what == '[' ? "]" : "}") + "' closing the '" + o.what + "' at " + position(o));
  }

  YamlSyntaxError unclosed_quote(std::string_view message) const {
    const OpenAt open = open_at(lines_, line_, byte_);
    const std::string what =
        message == kDocInScalar
            ? "the document marker " + shown(text_.substr(std::min(byte_, text_.size()), 3))
            : found();
    if (!open.quote) {
      return here("found " + what + " inside a quoted string, expected its closing quote first");
    }
    const std::string quote = open.quote->what == '"' ? "double quote" : "single quote";
    return here("found " + what + " inside the string that the " + quote + " at " +
                position(*open.quote) + " opens, expected its closing " + quote + " first");
  }

  YamlSyntaxError bad_escape(std::string_view message) {
    const std::string_view c = message.substr(kInvalidEscape.size());
    const std::size_t at = escape_start(text_, byte_);
    if (at != kNpos) byte_ = at;
    return here("found '\\" + printable(c) +
                "' in a double-quoted string, expected one of YAML's escapes (\\\\, \\\", \\n, "
                "\\t, \\xXX, \\uXXXX, ...): write a backslash as '\\\\', or quote with ' (as in "
                "'C:\\data')");
  }

  YamlSyntaxError bad_hex() {
    const std::size_t end = byte_;
    const std::size_t at = escape_start(text_, end);
    if (at == kNpos) return general();
    byte_ = at;
    return here("found the escape " + shown(text_.substr(at, end - at)) +
                ", expected '\\x', '\\u' or '\\U' followed by 2, 4 or 8 hexadecimal digits "
                "naming a character");
  }

  YamlSyntaxError block_header() {
    if (text_.empty()) return general();
    std::size_t at = std::min(byte_, text_.size() - 1);
    while (at > 0 && text_[at] != '|' && text_[at] != '>') --at;
    if (text_[at] != '|' && text_[at] != '>') return general();
    byte_ = at;
    const std::size_t end = std::min(text_.find_first_of(" \t", at), text_.size());
    return here("found the block scalar header " + shown(text_.substr(at, end - at)) +
                ", expected '" + std::string(1, text_[at]) +
                "' followed only by an indentation digit 1-9 and '+' or '-', then the end of "
                "the line");
  }

  Lines lines_;
  std::size_t line_;
  std::string_view text_;
  std::size_t byte_;
};

}  // namespace

YamlSyntaxError explain_yaml_error(std::string_view text, std::size_t line, std::size_t column,
                                   std::string_view parser_message) {
  return Explainer(text, line, column).explain(parser_message);
}

}  // namespace hpsearch::config_detail
