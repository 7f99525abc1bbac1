// `stepsim import --megatron FILE`: a Megatron-LM command line, as a shell script (comments,
// quotes, backslash continuations) or a plain list of `--flag value` words, into RunArguments.
// The launcher (`torchrun ... pretrain_gpt.py`) and other commands are passed over and said so; a
// word the shell would expand ($VAR, ${ARR[@]}, $(...), `...`) is an error: its value is unknown.
#include <algorithm>
#include <cctype>
#include <filesystem>

#include "scenarios/megatron_detail.hpp"
#include "scenarios/toml_reader.hpp"

namespace stepsim::scen {
namespace megatron_args {

using megatron::RunArgument;

/// A shell word: its text with quotes removed, where it starts, and whether the shell would
/// expand part of it.
struct Word {
  std::string text;
  std::string raw;  ///< as written
  SourceLocation where;
  bool expands = false;
};

/// Splits shell text into commands (at newlines, `;`, `|`, `&`) of words, dropping comments and
/// redirections. Only what a training command line uses: no here-documents, no brace expansion.
class ShellWords {
 public:
  ShellWords(std::string_view text, std::string file) : text_(text), file_(std::move(file)) {}

  std::vector<std::vector<Word>> commands() {
    while (at_ < text_.size()) step();
    end_command();
    if (commands_.back().empty()) commands_.pop_back();
    return std::move(commands_);
  }

 private:
  void step() {
    const char c = text_[at_];
    if (!in_word_ && c == '#') {
      while (at_ < text_.size() && text_[at_] != '\n') advance();
    } else if (c == '\\' && (peek(1) == '\n' || (peek(1) == '\r' && peek(2) == '\n'))) {
      advance();
      if (text_[at_] == '\r') advance();
      advance();  // a continuation: the command goes on
    } else if (c == ' ' || c == '\t' || c == '\r') {
      end_word();
      advance();
    } else if (c == '\n' || c == ';' || c == '|' || c == '&') {
      end_command();
      advance();
    } else if (c == '>' || c == '<') {
      redirection();
    } else {
      word_char(c);
    }
  }

  void word_char(char c) {
    if (!in_word_) {
      in_word_ = true;
      word_ = Word{"", "", SourceLocation{file_, line_, column_}, false};
      word_start_ = at_;
    }
    if (c == '\'') {
      advance();
      while (at_ < text_.size() && text_[at_] != '\'') word_.text += advance();
      if (at_ >= text_.size()) fail("a single quote without its end");
      advance();
    } else if (c == '"') {
      advance();
      while (at_ < text_.size() && text_[at_] != '"') {
        if (text_[at_] == '\\' && std::string_view("\"\\$`").find(peek(1)) != std::string_view::npos)
          advance();
        else if (text_[at_] == '$' || text_[at_] == '`')
          word_.expands = true;
        word_.text += advance();
      }
      if (at_ >= text_.size()) fail("a double quote without its end");
      advance();
    } else if (c == '\\') {
      advance();
      if (at_ < text_.size()) word_.text += advance();
    } else {
      if (c == '$' || c == '`') word_.expands = true;
      word_.text += advance();
    }
  }

  /// `> log.txt`, `2>&1`, `< in`: the operator (with a file descriptor word just before it) and
  /// its target are dropped.
  void redirection() {
    if (in_word_ && word_.text.find_first_not_of("0123456789") == std::string::npos) in_word_ = false;
    end_word();
    bool duplicate = false;
    while (at_ < text_.size() && (text_[at_] == '>' || text_[at_] == '<' || text_[at_] == '&'))
      duplicate = advance() == '&';
    if (duplicate) {
      while (at_ < text_.size() &&
             (std::isdigit(static_cast<unsigned char>(text_[at_])) || text_[at_] == '-'))
        advance();
      return;
    }
    while (at_ < text_.size() && (text_[at_] == ' ' || text_[at_] == '\t')) advance();
    while (at_ < text_.size() && std::string_view(" \t\r\n;|&").find(text_[at_]) == std::string_view::npos)
      advance();
  }

  void end_word() {
    if (in_word_) {
      word_.raw = std::string(text_.substr(word_start_, at_ - word_start_));
      commands_.back().push_back(std::move(word_));
    }
    in_word_ = false;
  }
  void end_command() {
    end_word();
    if (!commands_.back().empty()) commands_.emplace_back();
  }
  char peek(std::size_t ahead) const { return at_ + ahead < text_.size() ? text_[at_ + ahead] : '\0'; }
  char advance() {
    const char c = text_[at_++];
    if (c == '\n') {
      ++line_;
      column_ = 1;
    } else {
      ++column_;
    }
    return c;
  }
  [[noreturn]] void fail(const std::string& problem) const {
    throw UserError(word_.where, "", problem, "close it, as the shell would need");
  }

  std::string_view text_;
  std::string file_;
  std::size_t at_ = 0;
  int line_ = 1;
  int column_ = 1;
  bool in_word_ = false;
  Word word_;
  std::size_t word_start_ = 0;
  std::vector<std::vector<Word>> commands_ = {{}};
};

std::string joined(const std::vector<Word>& words, std::size_t end) {
  std::string out;
  for (std::size_t i = 0; i < end && i < words.size(); ++i) out += (i == 0 ? "" : " ") + words[i].raw;
  return out;
}

bool is_script(const Word& w) {
  return !w.expands && w.text.size() > 3 && w.text.compare(w.text.size() - 3, 3, ".py") == 0;
}

/// The words after the training script, or (without one) from the first `--` word on; what comes
/// before, and other commands, are recorded in `skipped`.
std::vector<Word> argument_words(std::vector<std::vector<Word>> commands, std::vector<std::string>& skipped) {
  for (std::size_t c = 0; c < commands.size(); ++c) {
    const auto& words = commands[c];
    const auto script = std::find_if(words.begin(), words.end(), is_script);
    if (script == words.end()) continue;
    const auto n = static_cast<std::size_t>(script - words.begin()) + 1;
    skipped.push_back("the launcher `" + joined(words, n) + "` (line " + std::to_string(words[0].where.line) +
                      ")");
    std::string others;
    for (std::size_t o = 0; o < commands.size(); ++o)
      if (o != c) others += (others.empty() ? "" : ", ") + std::to_string(commands[o][0].where.line);
    if (!others.empty())
      skipped.push_back("the file's other commands (line" +
                        std::string(others.find(',') == std::string::npos ? " " : "s ") + others + ")");
    return {words.begin() + static_cast<std::ptrdiff_t>(n), words.end()};
  }
  std::vector<Word> all;
  for (auto& words : commands) all.insert(all.end(), words.begin(), words.end());
  const auto first =
      std::find_if(all.begin(), all.end(), [](const Word& w) { return w.text.rfind("--", 0) == 0; });
  if (first != all.begin() && first != all.end())
    skipped.push_back("`" + joined(all, static_cast<std::size_t>(first - all.begin())) +
                      "` before the first option (line " + std::to_string(all[0].where.line) + ")");
  return {first, all.end()};
}

/// Words into arguments: `--name value`, `--name=value`, switches, lists; a word after no option
/// goes to `strays`.
std::vector<RunArgument> to_arguments(const std::vector<Word>& words, std::vector<std::string>& strays) {
  std::vector<RunArgument> out;
  for (std::size_t i = 0; i < words.size();) {
    const Word& w = words[i++];
    if (w.text.rfind("--", 0) != 0 || w.text.size() == 2) {
      strays.push_back("`" + w.raw + "` (a word that follows no option)");
      continue;
    }
    const std::size_t eq = w.text.find('=');
    RunArgument a;
    a.spelled = w.text.substr(0, eq);
    a.name = a.spelled.substr(2);
    std::replace(a.name.begin(), a.name.end(), '-', '_');
    a.where = w.where;
    const megatron::Arity arity = megatron::arity_of(a.name);
    const auto is_value = [&](std::size_t j) {
      return j < words.size() && words[j].text.rfind("--", 0) != 0;
    };
    if (eq != std::string::npos) {
      a.values.push_back(w.text.substr(eq + 1));
    } else if (arity == megatron::Arity::one) {
      if (is_value(i)) a.values.push_back(words[i++].text);
    } else if (arity != megatron::Arity::none) {
      while (is_value(i)) a.values.push_back(words[i++].text);
    }
    out.push_back(std::move(a));
  }
  return out;
}

}  // namespace megatron_args

namespace megatron {

std::string read_run_file(const std::filesystem::path& file, const std::string& what) {
  namespace fs = std::filesystem;
  std::error_code ec;
  const SourceLocation where{file.string(), 0, 0};
  if (!fs::exists(file, ec)) throw UserError(where, "", "file not found", "give the path of " + what);
  if (!fs::is_regular_file(file, ec))
    throw UserError(where, "", "is not a regular file", "give the path of " + what);
  const std::uintmax_t bytes = fs::file_size(file, ec);
  if (!ec && bytes > (std::uintmax_t{16} << 20))
    throw UserError(where, "", "is " + std::to_string(bytes) + " bytes, too large for " + what,
                    "a training command or config is a few kilobytes");
  return read_text_file(file);
}

}  // namespace megatron

ImportedRun import_megatron_text(std::string_view text, const std::string& file_name,
                                 const ImportCluster& cluster, const Catalog& catalog) {
  using namespace megatron_args;
  std::vector<std::string> skipped;
  const std::vector<Word> words = argument_words(ShellWords(text, file_name).commands(), skipped);
  for (const Word& w : words)
    if (w.expands)
      throw UserError(
          w.where, "`" + w.raw + "`", "a shell expansion stepsim cannot resolve",
          "write its value instead; `bash -x` on the script prints the command with its variables "
          "expanded");
  if (words.empty())
    throw UserError(
        SourceLocation{file_name}, "", "holds no Megatron-LM arguments (no `--option` words)",
        "give the training command, e.g. `torchrun ... pretrain_gpt.py --num-layers 80 ...`, or its "
        "arguments one after another");
  std::vector<std::string> strays;
  const std::vector<RunArgument> args = to_arguments(words, strays);
  ImportedRun r = megatron::resolve_run(megatron::read_settings(args, megatron::Dialect::megatron, file_name),
                                        cluster, catalog);
  r.not_used.insert(r.not_used.end(), strays.begin(), strays.end());
  r.skipped = std::move(skipped);
  r.format = "Megatron-LM arguments";
  r.model.name = std::filesystem::path(file_name).stem().string();
  return r;
}

ImportedRun import_megatron_args(const std::filesystem::path& file, const ImportCluster& cluster,
                                 const Catalog& catalog) {
  const std::string text = megatron::read_run_file(file, "a Megatron-LM command line or argument list");
  return import_megatron_text(text, file.string(), cluster, catalog);
}

}  // namespace stepsim::scen
