// Reading a Hugging Face config.json: the file, the JSON, the architecture, the model's name.
#include "scenarios/hf_config.hpp"

#include <algorithm>
#include <cctype>
#include <system_error>

#include "scenarios/hf_fields.hpp"
#include "scenarios/toml_reader.hpp"

namespace stepsim::scen {
namespace hf_config_file {

using nlohmann::json;

/// Real configs are a few kilobytes; anything this large is not one.
constexpr std::uintmax_t kMaxConfigBytes = 16u << 20;

/// "...: parse error at line 3, column 5: syntax error ..." -> {3, 5} and the part after it.
struct JsonErrorText {
  int line = 0;
  int column = 0;
  std::string problem;
};

JsonErrorText split_parse_error(const std::string& what) {
  JsonErrorText out;
  out.problem = what;
  const std::string at = "at line ";
  const auto l = what.find(at);
  if (l == std::string::npos) return out;
  std::size_t pos = l + at.size();
  const auto number = [&](int& v) {
    v = 0;
    while (pos < what.size() && std::isdigit(static_cast<unsigned char>(what[pos])) && v < 100000000)
      v = v * 10 + (what[pos++] - '0');
  };
  number(out.line);
  const std::string col = ", column ";
  if (what.compare(pos, col.size(), col) == 0) {
    pos += col.size();
    number(out.column);
  }
  if (what.compare(pos, 2, ": ") == 0) pos += 2;
  out.problem = what.substr(pos);
  for (char& c : out.problem)
    if (static_cast<unsigned char>(c) < 0x20) c = ' ';
  return out;
}

/// A name from the file as messages show it: control characters replaced, at most 80 characters.
std::string visible(std::string text) {
  if (text.size() > 80) text = text.substr(0, 77) + "...";
  for (char& c : text)
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) c = '?';
  return text;
}

json parse_json(std::string_view text, const std::string& file) {
  try {
    return json::parse(text);
  } catch (const json::parse_error& e) {
    const JsonErrorText t = split_parse_error(e.what());
    throw UserError(SourceLocation{file, t.line, t.column}, "", "is not valid JSON: " + t.problem,
                    "a config.json is one JSON object, as transformers writes it");
  }
}

/// The model's name: the file's (Llama-3.1-8B.json), or for a file called config.json the
/// repository's (`_name_or_path`, else the folder the file is in).
std::string model_name(const json& doc, const std::filesystem::path& file) {
  std::string stem = file.stem().string();
  if (stem != "config" && !stem.empty()) return stem;
  if (const auto it = doc.find("_name_or_path"); it != doc.end() && it->is_string()) {
    std::string n = it->get<std::string>();
    while (!n.empty() && n.back() == '/') n.pop_back();
    if (const auto slash = n.rfind('/'); slash != std::string::npos) n = n.substr(slash + 1);
    if (!n.empty()) return n;
  }
  const std::string folder = file.parent_path().filename().string();
  return folder.empty() ? "hf-model" : folder;
}

/// A catalog-style id: lower case, letters, digits, '.', '-' and '_'.
std::string model_id(const std::string& name) {
  std::string id;
  for (char c : name) {
    const auto u = static_cast<unsigned char>(c);
    id += std::isalnum(u) || c == '.' || c == '_' ? static_cast<char>(std::tolower(u)) : '-';
  }
  return id;
}

const hf::Architecture* find_architecture(const std::string& class_name, const std::string& model_type) {
  for (const auto& a : hf::architectures())
    if (!class_name.empty() && a.class_name == class_name) return &a;
  if (class_name.empty())
    for (const auto& a : hf::architectures())
      if (a.model_type == model_type) return &a;
  return nullptr;
}

/// `architectures[0]` (empty when the file has no list).
std::string class_name_of(hf::Fields& top) {
  const json* list = top.has("architectures") ? &top.raw().at("architectures") : nullptr;
  top.use({"architectures"});
  if (list == nullptr) return {};
  if (!list->is_array() || list->empty() || !(*list)[0].is_string())
    top.fail("architectures", "must be a list of class names, e.g. [\"LlamaForCausalLM\"]");
  return (*list)[0].get<std::string>();
}

}  // namespace hf_config_file

std::string supported_hf_architectures() {
  std::string out;
  for (const auto& a : hf::architectures())
    out += (out.empty() ? "" : ", ") + std::string(a.class_name) + " (" + std::string(a.family) + ")";
  return out;
}

HfModel parse_hf_config(std::string_view json_text, const std::string& file_name,
                        const std::optional<HfReference>& from) {
  const nlohmann::json doc = hf_config_file::parse_json(json_text, file_name);
  if (!doc.is_object())
    throw UserError(SourceLocation{file_name, 1, 1}, "", "is not a config.json: expected a JSON object",
                    "a Hugging Face config.json is an object such as {\"architectures\": [...], ...}");
  const hf::Source src{file_name, json_text};
  hf::Fields top(doc, {}, src);
  const std::string class_name = hf_config_file::class_name_of(top);
  const std::string model_type = top.text("model_type").value_or("");
  const hf::Architecture* arch = hf_config_file::find_architecture(class_name, model_type);
  if (arch == nullptr && class_name.empty() && model_type.empty()) {
    const std::string problem = "names no architecture (neither `architectures` nor `model_type`)";
    const std::string hint = "is this a model's config.json? transformers writes both";
    if (from) throw UserError(from->where, from->key, file_name + " " + problem, hint);
    throw UserError(SourceLocation{file_name, 0, 0}, "", problem, hint);
  }
  if (arch == nullptr) {
    const std::string what = class_name.empty() ? "model_type `" + hf_config_file::visible(model_type) + "`"
                                                : "`" + hf_config_file::visible(class_name) + "`";
    const std::string problem = file_name + " is a " + what + " model, an architecture stepsim cannot read";
    const std::string hint = "supported: " + supported_hf_architectures() +
                             "; or describe the model with [model] keys (docs/scenarios.md)";
    if (from) throw UserError(from->where, from->key, problem, hint);
    top.fail(class_name.empty() ? "model_type" : "architectures",
             "is " + what + ", an architecture stepsim cannot read", hint);
  }
  hf::Mapped mapped;
  arch->read(top, mapped);
  hf::note_unread(top, mapped.notes);
  HfModel out;
  out.model = std::move(mapped.model);
  if (out.model.head_dim == 0) out.model.head_dim = out.model.hidden / out.model.heads;
  out.model.name = hf_config_file::visible(hf_config_file::model_name(doc, std::filesystem::path(file_name)));
  out.model.id = hf_config_file::model_id(out.model.name);
  out.architecture = class_name.empty() ? std::string(arch->class_name) : class_name;
  out.family = arch->family;
  out.notes = std::move(mapped.notes);
  return out;
}

HfModel load_hf_config(const std::filesystem::path& path, const std::optional<HfReference>& from) {
  namespace fs = std::filesystem;
  std::error_code ec;
  // A model's folder (a Hugging Face snapshot) stands for the config.json in it.
  const bool folder = fs::is_directory(path, ec);
  const fs::path file = folder ? path / "config.json" : path;
  const auto refuse = [&](const std::string& problem, const std::string& hint) {
    if (from) throw UserError(from->where, from->key, problem, hint);
    throw UserError(SourceLocation{file.string(), 0, 0}, "", problem, hint);
  };
  if (!fs::exists(file, ec))
    refuse((folder ? "folder without a config.json" : "file not found") + std::string(" (looked for ") +
               file.string() + ")",
           from ? "paths are relative to the scenario file" : "give the path of a model's config.json");
  // Devices and pipes (/dev/zero, a FIFO) would be read without end.
  if (!fs::is_regular_file(file, ec))
    refuse(file.string() + " is not a regular file", "give a config.json file");
  const std::uintmax_t bytes = fs::file_size(file, ec);
  if (!ec && bytes > hf_config_file::kMaxConfigBytes)
    throw UserError(SourceLocation{file.string(), 0, 0}, "",
                    "is " + std::to_string(bytes) + " bytes, too large for a config.json",
                    "a model's config.json is a few kilobytes: give that file, not the weights");
  const std::string text = read_text_file(file);
  return parse_hf_config(text, file.string(), from);
}

}  // namespace stepsim::scen
