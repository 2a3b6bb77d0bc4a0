#include "formats/pickle_reader.h"

#include <cstring>
#include <map>
#include <set>
#include <unordered_map>
#include <utility>

namespace minimind {

namespace {

// Every pickle opcode by name (protocols 0-5), for messages; the
// interpreter below handles only the ones torch's state dicts and training
// checkpoints use.
const char* opcode_name(uint8_t op) {
  // clang-format off
  static const std::map<uint8_t, const char*> names = {
      {'(', "MARK"}, {'.', "STOP"}, {'0', "POP"}, {'1', "POP_MARK"}, {'2', "DUP"}, {'F', "FLOAT"}, {'I', "INT"},
      {'J', "BININT"}, {'K', "BININT1"}, {'L', "LONG"}, {'M', "BININT2"}, {'N', "NONE"}, {'P', "PERSID"},
      {'Q', "BINPERSID"}, {'R', "REDUCE"}, {'S', "STRING"}, {'T', "BINSTRING"}, {'U', "SHORT_BINSTRING"},
      {'V', "UNICODE"}, {'X', "BINUNICODE"}, {'a', "APPEND"}, {'b', "BUILD"}, {'c', "GLOBAL"}, {'d', "DICT"},
      {'}', "EMPTY_DICT"}, {'e', "APPENDS"}, {'g', "GET"}, {'h', "BINGET"}, {'i', "INST"}, {'j', "LONG_BINGET"},
      {'l', "LIST"}, {']', "EMPTY_LIST"}, {'o', "OBJ"}, {'p', "PUT"}, {'q', "BINPUT"}, {'r', "LONG_BINPUT"},
      {'s', "SETITEM"}, {'t', "TUPLE"}, {')', "EMPTY_TUPLE"}, {'u', "SETITEMS"}, {'G', "BINFLOAT"}, {'B', "BINBYTES"},
      {'C', "SHORT_BINBYTES"}, {0x80, "PROTO"}, {0x81, "NEWOBJ"}, {0x82, "EXT1"}, {0x83, "EXT2"}, {0x84, "EXT4"},
      {0x85, "TUPLE1"}, {0x86, "TUPLE2"}, {0x87, "TUPLE3"}, {0x88, "NEWTRUE"}, {0x89, "NEWFALSE"}, {0x8a, "LONG1"},
      {0x8b, "LONG4"}, {0x8c, "SHORT_BINUNICODE"}, {0x8d, "BINUNICODE8"}, {0x8e, "BINBYTES8"}, {0x8f, "EMPTY_SET"},
      {0x90, "ADDITEMS"}, {0x91, "FROZENSET"}, {0x92, "NEWOBJ_EX"}, {0x93, "STACK_GLOBAL"}, {0x94, "MEMOIZE"},
      {0x95, "FRAME"}, {0x96, "BYTEARRAY8"}, {0x97, "NEXT_BUFFER"}, {0x98, "READONLY_BUFFER"},
  };
  // clang-format on
  const auto it = names.find(op);
  return it == names.end() ? nullptr : it->second;
}

std::string hex_byte(uint8_t b) {
  const char* digits = "0123456789abcdef";
  return std::string("0x") + digits[b >> 4] + digits[b & 15];
}

// Text from the file, made printable and short for a message.
std::string quoted(const std::string& s) {
  std::string out;
  for (size_t i = 0; i < s.size() && i < 80; ++i) {
    const unsigned char c = static_cast<unsigned char>(s[i]);
    out += c >= 0x20 && c < 0x7f ? std::string(1, char(c)) : "\\x" + hex_byte(c).substr(2);
  }
  return "'" + out + (s.size() > 80 ? "...'" : "'");
}

// The callables and classes a state dict may name, and what they mean here.
enum class Global { OrderedDict, RebuildTensorV2, RebuildParameter, FloatStorage, HalfStorage, BFloat16Storage };

enum class Kind : uint8_t { None, Bool, Int, Float, String, Tuple, List, Dict, Global, Storage, Tensor };

const char* kind_name(Kind k) {
  switch (k) {
    case Kind::None:
      return "None";
    case Kind::Bool:
      return "a bool";
    case Kind::Int:
      return "an int";
    case Kind::Float:
      return "a float";
    case Kind::String:
      return "a string";
    case Kind::Tuple:
      return "a tuple";
    case Kind::List:
      return "a list";
    case Kind::Dict:
      return "a dict";
    case Kind::Global:
      return "a class or function";
    case Kind::Storage:
      return "a storage";
    case Kind::Tensor:
      return "a tensor";
  }
  return "?";
}

// A pickled object: scalars inline, everything else an index into the
// interpreter's tables, so memo and stack copies are cheap and shared
// objects (a dict filled after it was memoised) stay shared.
struct Value {
  Kind kind = Kind::None;
  int64_t number = 0;  // Int, Bool, Global (as the Global enum)
  double real = 0;     // Float
  uint32_t index = 0;  // String, Tuple, List, Dict, Storage, Tensor: row of its table
};

struct Storage {
  DType dtype;
  uint32_t key;  // string table row
  uint64_t numel;
};

struct TensorView {
  uint32_t storage;  // storage table row
  uint64_t offset;
  uint32_t size;    // tuple table row, validated: non-negative ints, <= kMaxPickledDims
  uint32_t stride;  // idem
};

class Unpickler {
 public:
  Unpickler(const uint8_t* bytes, size_t size) : p_(bytes), size_(size) {}

  PickledCheckpoint run() {
    while (true) {
      if (pos_ >= size_) fail("pickle.no_stop", {}, "the pickle ends without STOP (truncated?)");
      op_pos_ = pos_;
      op_ = p_[pos_++];
      if (op_ == '.') break;
      step();
    }
    return checkpoint(pop());
  }

 private:
  // Throws a PickleError of `kind` with its values and the offending
  // opcode's byte offset (offset) in data.pkl.
  [[noreturn]] void fail(const char* kind, ErrorValues values, const std::string& what) const {
    values.emplace_back("offset", int64_t(op_pos_));
    throw PickleError(kind, std::move(values), what + " (data.pkl byte " + std::to_string(op_pos_) + ")");
  }

  std::string op_label() const {
    const char* name = opcode_name(op_);
    return name ? name : hex_byte(op_);
  }

  const uint8_t* take(size_t n) {
    if (n > size_ - pos_) {
      fail("pickle.truncated", {{"opcode", op_label()}, {"needed", int64_t(n)}, {"left", int64_t(size_ - pos_)}},
           "truncated pickle: opcode " + op_label() + " needs " + std::to_string(n) + " bytes, " +
               std::to_string(size_ - pos_) + " left");
    }
    const uint8_t* at = p_ + pos_;
    pos_ += n;
    return at;
  }
  uint64_t take_le(size_t n) {
    const uint8_t* b = take(n);
    uint64_t v = 0;
    for (size_t i = 0; i < n; ++i) v |= uint64_t(b[i]) << (8 * i);
    return v;
  }
  std::string take_line() {
    const void* nl = std::memchr(p_ + pos_, '\n', size_ - pos_);
    if (!nl)
      fail("pickle.no_end_of_line", {{"opcode", op_label()}},
           "truncated pickle: opcode " + op_label() + " has no end of line");
    const size_t n = size_t(static_cast<const uint8_t*>(nl) - (p_ + pos_));
    std::string s(reinterpret_cast<const char*>(p_ + pos_), n);
    pos_ += n + 1;
    return s;
  }

  // The stack is split into frames by MARK, as CPython's metastack: an
  // opcode may pop only from the frame it runs in.
  size_t frame_base() const { return marks_.empty() ? 0 : marks_.back(); }
  void push(Value v) { stack_.push_back(v); }
  Value pop() {
    if (stack_.size() <= frame_base())
      fail("pickle.stack_underflow", {{"opcode", op_label()}}, "pickle stack underflow at opcode " + op_label());
    const Value v = stack_.back();
    stack_.pop_back();
    return v;
  }
  Value& top() {
    if (stack_.size() <= frame_base())
      fail("pickle.stack_underflow", {{"opcode", op_label()}}, "pickle stack underflow at opcode " + op_label());
    return stack_.back();
  }
  std::vector<Value> pop_mark() {
    if (marks_.empty())
      fail("pickle.no_mark", {{"opcode", op_label()}}, "opcode " + op_label() + " without a MARK before it");
    std::vector<Value> items(stack_.begin() + std::ptrdiff_t(marks_.back()), stack_.end());
    stack_.resize(marks_.back());
    marks_.pop_back();
    return items;
  }

  Value new_string(std::string s) {
    strings_.push_back(std::move(s));
    return {Kind::String, 0, 0, uint32_t(strings_.size() - 1)};
  }
  Value new_tuple(std::vector<Value> items) {
    tuples_.push_back(std::move(items));
    return {Kind::Tuple, 0, 0, uint32_t(tuples_.size() - 1)};
  }
  Value new_list(std::vector<Value> items) {
    lists_.push_back(std::move(items));
    return {Kind::List, 0, 0, uint32_t(lists_.size() - 1)};
  }
  Value new_dict() {
    dicts_.emplace_back();
    return {Kind::Dict, 0, 0, uint32_t(dicts_.size() - 1)};
  }
  Value new_string_of(size_t length) {
    const uint8_t* s = take(length);
    return new_string(std::string(reinterpret_cast<const char*>(s), length));
  }

  void memo_put(uint64_t key) { memo_[key] = top(); }
  void memoize() { memo_put(memo_.size()); }  // protocol 4: the next index, as CPython's len(memo)
  void memo_get(uint64_t key) {
    const auto it = memo_.find(key);
    if (it == memo_.end())
      fail("pickle.memo_missing", {{"opcode", op_label()}, {"key", int64_t(key)}},
           "opcode " + op_label() + " reads memo entry " + std::to_string(key) + ", never stored");
    push(it->second);
  }

  // GLOBAL module\nname\n (protocol 2).
  void global() {
    const std::string module = take_line(), name = take_line();
    push_global(module, name);
  }

  // STACK_GLOBAL (protocol 4): the module and the name were pushed as strings.
  void stack_global() {
    const Value name = pop(), module = pop();
    if (name.kind != Kind::String || module.kind != Kind::String) {
      fail("pickle.global_not_strings",
           {{"module", std::string(kind_name(module.kind))}, {"name", std::string(kind_name(name.kind))}},
           "STACK_GLOBAL takes a module and a name as strings, got " + std::string(kind_name(module.kind)) + " and " +
               kind_name(name.kind));
    }
    push_global(strings_[module.index], strings_[name.index]);
  }

  void push_global(const std::string& module, const std::string& name) {
    const std::string full = module + " " + name;
    Global g;
    if (full == "collections OrderedDict") {
      g = Global::OrderedDict;
    } else if (full == "torch._utils _rebuild_tensor_v2") {
      g = Global::RebuildTensorV2;
    } else if (full == "torch._utils _rebuild_parameter") {
      g = Global::RebuildParameter;
    } else if (full == "torch FloatStorage") {
      g = Global::FloatStorage;
    } else if (full == "torch HalfStorage") {
      g = Global::HalfStorage;
    } else if (full == "torch BFloat16Storage") {
      g = Global::BFloat16Storage;
    } else if (module == "torch" && name.size() > 7 && name.compare(name.size() - 7, 7, "Storage") == 0) {
      fail("pickle.storage_type", {{"type", "torch." + name.substr(0, 80)}},
           "storage type torch." + name.substr(0, 80) +
               " is not supported: weights must be float32, float16 or bfloat16 (FloatStorage, HalfStorage, "
               "BFloat16Storage)");
    } else {
      fail("pickle.global_refused", {{"opcode", op_label()}, {"global", quoted(full)}},
           "pickle opcode " + op_label() + " " + quoted(full) + " is not allowed: .pth files are read as data only");
    }
    push({Kind::Global, int64_t(g), 0, 0});
  }

  // BINPERSID: torch's persistent id ('storage', storage_type, key, location, numel).
  void persistent_id() {
    const Value pid = pop();
    if (pid.kind != Kind::Tuple || tuples_[pid.index].size() != 5) {
      fail("pickle.persistent_id_not_tuple", {{"type", std::string(kind_name(pid.kind))}},
           "persistent id is " + std::string(kind_name(pid.kind)) +
               ", expected torch's ('storage', type, key, location, numel)");
    }
    const std::vector<Value>& t = tuples_[pid.index];
    if (t[0].kind != Kind::String || strings_[t[0].index] != "storage")
      fail("pickle.persistent_id_field", {{"field", "storage"}}, "persistent id does not name a storage");
    if (t[1].kind != Kind::Global || t[1].number == int64_t(Global::OrderedDict) ||
        t[1].number == int64_t(Global::RebuildTensorV2) || t[1].number == int64_t(Global::RebuildParameter)) {
      fail("pickle.persistent_id_field", {{"field", "type"}},
           "persistent id has no storage type (FloatStorage, HalfStorage or BFloat16Storage)");
    }
    if (t[2].kind != Kind::String || strings_[t[2].index].empty() || strings_[t[2].index].size() > 64) {
      fail("pickle.persistent_id_field", {{"field", "key"}}, "persistent id has no storage key (a short string)");
    }
    if (t[3].kind != Kind::String)
      fail("pickle.persistent_id_field", {{"field", "location"}},
           "persistent id has no storage location (such as 'cpu')");
    if (t[4].kind != Kind::Int || t[4].number < 0)
      fail("pickle.persistent_id_field", {{"field", "numel"}}, "persistent id has no element count");
    const Global g = Global(t[1].number);
    const DType dtype = g == Global::FloatStorage ? DType::F32 : g == Global::HalfStorage ? DType::F16 : DType::BF16;
    storages_.push_back({dtype, t[2].index, uint64_t(t[4].number)});
    push({Kind::Storage, 0, 0, uint32_t(storages_.size() - 1)});
  }

  // A tuple of non-negative ints with at most kMaxPickledDims entries.
  bool is_dims(const Value& v) const {
    if (v.kind != Kind::Tuple || tuples_[v.index].size() > kMaxPickledDims) return false;
    for (const Value& d : tuples_[v.index]) {
      if (d.kind != Kind::Int || d.number < 0) return false;
    }
    return true;
  }

  void reduce() {
    const Value args = pop();
    const Value callable = pop();
    if (callable.kind != Kind::Global)
      fail("pickle.reduce_not_global", {{"type", std::string(kind_name(callable.kind))}},
           "REDUCE calls " + std::string(kind_name(callable.kind)));
    if (args.kind != Kind::Tuple)
      fail("pickle.reduce_args", {{"type", std::string(kind_name(args.kind))}},
           "REDUCE arguments are " + std::string(kind_name(args.kind)) + ", not a tuple");
    const std::vector<Value>& a = tuples_[args.index];
    switch (Global(callable.number)) {
      case Global::OrderedDict:
        if (!a.empty())
          fail("pickle.ordered_dict_args", {},
               "OrderedDict is built with arguments; torch.save writes OrderedDict() then SETITEMS");
        push(new_dict());
        return;
      case Global::RebuildTensorV2:
        // _rebuild_tensor_v2(storage, storage_offset, size, stride, requires_grad, backward_hooks[, metadata])
        if (a.size() != 6 && a.size() != 7)
          fail("pickle.argument_count", {{"function", "_rebuild_tensor_v2"}, {"count", int64_t(a.size())}},
               "_rebuild_tensor_v2 takes 6 or 7 arguments, got " + std::to_string(a.size()));
        if (a[0].kind != Kind::Storage)
          fail("pickle.tensor_storage", {}, "_rebuild_tensor_v2's first argument is not a storage");
        if (a[1].kind != Kind::Int || a[1].number < 0)
          fail("pickle.tensor_offset", {}, "_rebuild_tensor_v2's storage offset is not a size");
        if (!is_dims(a[2]) || !is_dims(a[3]) || tuples_[a[2].index].size() != tuples_[a[3].index].size()) {
          fail("pickle.tensor_dims", {{"limit", int64_t(kMaxPickledDims)}},
               "_rebuild_tensor_v2's size and stride are not two tuples of sizes of equal length (at most " +
                   std::to_string(kMaxPickledDims) + ")");
        }
        tensors_.push_back({a[0].index, uint64_t(a[1].number), a[2].index, a[3].index});
        push({Kind::Tensor, 0, 0, uint32_t(tensors_.size() - 1)});
        return;
      case Global::RebuildParameter:
        // _rebuild_parameter(data, requires_grad, backward_hooks): an
        // nn.Parameter is its tensor here.
        if (a.size() != 3)
          fail("pickle.argument_count", {{"function", "_rebuild_parameter"}, {"count", int64_t(a.size())}},
               "_rebuild_parameter takes 3 arguments, got " + std::to_string(a.size()));
        if (a[0].kind != Kind::Tensor)
          fail("pickle.parameter_not_tensor", {}, "_rebuild_parameter's first argument is not a tensor");
        push(a[0]);
        return;
      default:
        fail("pickle.reduce_storage", {},
             "REDUCE of a storage type is not allowed: storages come only from persistent ids");
    }
  }

  void append(Value list, const std::vector<Value>& items) {
    if (list.kind != Kind::List)
      fail("pickle.not_list", {{"opcode", op_label()}, {"type", std::string(kind_name(list.kind))}},
           op_label() + " on " + kind_name(list.kind) + ", not a list");
    auto& l = lists_[list.index];
    l.insert(l.end(), items.begin(), items.end());
  }

  void set_items(Value dict, const std::vector<Value>& items) {
    if (dict.kind != Kind::Dict)
      fail("pickle.not_dict", {{"opcode", op_label()}, {"type", std::string(kind_name(dict.kind))}},
           op_label() + " on " + kind_name(dict.kind) + ", not a dict");
    if (items.size() % 2)
      fail("pickle.odd_items", {{"opcode", op_label()}}, op_label() + " with an odd number of items");
    auto& d = dicts_[dict.index];
    for (size_t i = 0; i < items.size(); i += 2) d.emplace_back(items[i], items[i + 1]);
  }

  void step() {
    switch (op_) {
      case 0x80: {  // PROTO
        const uint64_t version = take_le(1);
        if (version > 5)
          fail("pickle.protocol", {{"version", int64_t(version)}},
               "pickle protocol " + std::to_string(version) + " is unknown");
        return;
      }
      case '(':
        marks_.push_back(stack_.size());
        return;
      case '}':
        push(new_dict());
        return;
      case ')':
        push(new_tuple({}));
        return;
      case 0x95:  // FRAME (protocol 4): the length of the opcodes that follow, not needed
        take_le(8);
        return;
      case ']':
        push(new_list({}));
        return;
      case 'l':
        push(new_list(pop_mark()));
        return;
      case 'a': {
        const Value item = pop();
        append(top(), {item});
        return;
      }
      case 'e': {
        const std::vector<Value> items = pop_mark();
        append(top(), items);
        return;
      }
      case 'N':
        push({Kind::None, 0, 0, 0});
        return;
      case 0x88:
      case 0x89:
        push({Kind::Bool, op_ == 0x88, 0, 0});
        return;
      case 'K':
        push({Kind::Int, int64_t(take_le(1)), 0, 0});
        return;
      case 'M':
        push({Kind::Int, int64_t(take_le(2)), 0, 0});
        return;
      case 'J':
        push({Kind::Int, int64_t(int32_t(uint32_t(take_le(4)))), 0, 0});
        return;
      case 'G': {  // BINFLOAT: a big-endian float64 (learning rates, betas, the AMP scale)
        const uint8_t* b = take(8);
        uint64_t bits = 0;
        for (int i = 0; i < 8; ++i) bits = bits << 8 | b[i];
        double real;
        std::memcpy(&real, &bits, 8);
        push({Kind::Float, 0, real, 0});
        return;
      }
      case 0x8a: {  // LONG1: n-byte little-endian two's complement
        const size_t n = size_t(take_le(1));
        if (n > 8)
          fail("pickle.long_too_wide", {{"bytes", int64_t(n)}},
               "LONG1 integer of " + std::to_string(n) + " bytes is out of range");
        uint64_t v = take_le(n);
        if (n > 0 && n < 8 && (v >> (8 * n - 1)) & 1) v |= ~uint64_t(0) << (8 * n);  // sign-extend
        push({Kind::Int, int64_t(v), 0, 0});
        return;
      }
      case 'X':
        push(new_string_of(size_t(take_le(4))));
        return;
      case 0x8c:  // SHORT_BINUNICODE (protocol 4)
        push(new_string_of(size_t(take_le(1))));
        return;
      case 0x8d: {  // BINUNICODE8 (protocol 4)
        const uint64_t n = take_le(8);
        if (n > size_ - pos_) {
          fail("pickle.truncated", {{"opcode", op_label()}, {"needed", int64_t(n)}, {"left", int64_t(size_ - pos_)}},
               "truncated pickle: opcode " + op_label() + " needs " + std::to_string(n) + " bytes, " +
                   std::to_string(size_ - pos_) + " left");
        }
        push(new_string_of(size_t(n)));
        return;
      }
      case 0x94:
        memoize();
        return;
      case 'q':
        memo_put(take_le(1));
        return;
      case 'r':
        memo_put(take_le(4));
        return;
      case 'h':
        memo_get(take_le(1));
        return;
      case 'j':
        memo_get(take_le(4));
        return;
      case 'c':
        global();
        return;
      case 0x93:
        stack_global();
        return;
      case 'Q':
        persistent_id();
        return;
      case 't':
        push(new_tuple(pop_mark()));
        return;
      case 0x85:
      case 0x86:
      case 0x87: {  // TUPLE1..3
        std::vector<Value> items(size_t(op_ - 0x84));
        for (size_t i = items.size(); i-- > 0;) items[i] = pop();
        push(new_tuple(std::move(items)));
        return;
      }
      case 'R':
        reduce();
        return;
      case 's': {
        const Value value = pop(), key = pop();
        set_items(top(), {key, value});
        return;
      }
      case 'u': {
        const std::vector<Value> items = pop_mark();
        set_items(top(), items);
        return;
      }
      case 'b': {  // BUILD: the _metadata of a module's state_dict(); not needed
        pop();
        if (top().kind != Kind::Dict)
          fail("pickle.build_refused", {{"type", std::string(kind_name(top().kind))}},
               "BUILD on " + std::string(kind_name(top().kind)) + " is not allowed");
        return;
      }
      default:
        break;
    }
    const char* name = opcode_name(op_);
    if (!name)
      fail("pickle.opcode_unknown", {{"opcode", hex_byte(op_)}},
           "byte " + hex_byte(op_) + " is not a pickle opcode (corrupt data.pkl?)");
    fail("pickle.opcode_refused", {{"opcode", std::string(name)}, {"byte", hex_byte(op_)}},
         "pickle opcode " + std::string(name) + " (" + hex_byte(op_) +
             ") is not allowed: .pth files are read as data only (torch.save state dicts use a small subset of "
             "protocols 2 and 4)");
  }

  const Value* entry(const Value& dict, const std::string& key) const {
    for (const auto& [k, v] : dicts_[dict.index]) {
      if (k.kind == Kind::String && strings_[k.index] == key) return &v;
    }
    return nullptr;
  }

  bool all_tensors(const Value& dict) const {
    for (const auto& item : dicts_[dict.index]) {
      if (item.second.kind != Kind::Tensor) return false;
    }
    return true;
  }

  // "'model', 'optimizer', 'epoch'": the string keys of a dict, for messages.
  std::string key_list(const Value& dict) const {
    std::string out;
    size_t n = 0;
    for (const auto& item : dicts_[dict.index]) {
      if (item.first.kind != Kind::String) continue;
      if (n++ == 8) return out + ", ...";
      out += (out.empty() ? "" : ", ") + quoted(strings_[item.first.index]);
    }
    return out;
  }

  PickledCheckpoint checkpoint(const Value& root) {
    if (root.kind != Kind::Dict) {
      fail("pickle.not_state_dict", {{"type", std::string(kind_name(root.kind))}},
           "the pickled object is " + std::string(kind_name(root.kind)) + ", not a state dict of tensors");
    }
    PickledCheckpoint out;
    const Value* model = entry(root, "model");
    if (!all_tensors(root) && model && model->kind == Kind::Dict) {
      // MiniMind's resume checkpoint: the weights are its "model" entry.
      out.kind = CheckpointKind::ModelEntry;
      for (const auto& item : dicts_[root.index]) {
        if (item.first.kind == Kind::String) out.keys.push_back(strings_[item.first.index]);
      }
      for (auto [key, field] : {std::pair{"epoch", &out.epoch}, {"step", &out.step}, {"world_size", &out.world_size}}) {
        const Value* v = entry(root, key);
        if (v && v->kind == Kind::Int) *field = v->number;
      }
      out.tensors = state_dict(*model, "the checkpoint's 'model' entry: ", "");
      if (const Value* optimizer = entry(root, "optimizer")) read_optimizer(*optimizer, out);
      return out;
    }
    out.tensors = state_dict(root, "",
                             " (a training checkpoint? a state dict holds only tensors; MiniMind's resume checkpoint "
                             "keeps them under 'model', and this dict has the keys " +
                                 key_list(root) + ")");
    return out;
  }

  PickledTensor pickled_tensor(const std::string& name, const Value& value) const {
    const TensorView& t = tensors_[value.index];
    const Storage& s = storages_[t.storage];
    PickledTensor p;
    p.name = name;
    p.dtype = s.dtype;
    p.storage_key = strings_[s.key];
    p.storage_numel = s.numel;
    p.storage_offset = t.offset;
    for (const Value& d : tuples_[t.size]) p.shape.push_back(d.number);
    for (const Value& d : tuples_[t.stride]) p.stride.push_back(d.number);
    return p;
  }

  // A number (int or float) as a double, or nullopt.
  static std::optional<double> number(const Value* v) {
    if (!v) return std::nullopt;
    if (v->kind == Kind::Float) return v->real;
    if (v->kind == Kind::Int) return double(v->number);
    return std::nullopt;
  }

  // AdamW's state_dict() into out.optimizer; anything else leaves it empty
  // with out.optimizer_problem saying why (the weights load regardless).
  void read_optimizer(const Value& optimizer, PickledCheckpoint& out) const {
    const auto problem = [&](const std::string& what) { out.optimizer_problem = "the 'optimizer' entry " + what; };
    if (optimizer.kind != Kind::Dict) return problem("is " + std::string(kind_name(optimizer.kind)) + ", not a dict");
    const Value* state = entry(optimizer, "state");
    const Value* groups = entry(optimizer, "param_groups");
    if (!state || state->kind != Kind::Dict) return problem("has no 'state' dict");
    if (!groups || groups->kind != Kind::List) return problem("has no 'param_groups' list");
    PickledOptimizer result;
    for (const Value& g : lists_[groups->index]) {
      if (g.kind != Kind::Dict) return problem("has a param group that is not a dict");
      PickledParamGroup group;
      const Value* params = entry(g, "params");
      const Value* betas = entry(g, "betas");
      if (!params || params->kind != Kind::List) return problem("has a param group without 'params'");
      for (const Value& i : lists_[params->index]) {
        if (i.kind != Kind::Int) return problem("has a param group whose 'params' are not indices");
        group.params.push_back(i.number);
      }
      const std::optional<double> lr = number(entry(g, "lr")), eps = number(entry(g, "eps")),
                                  wd = number(entry(g, "weight_decay"));
      if (!lr || !eps || !wd || !betas || betas->kind != Kind::Tuple || tuples_[betas->index].size() != 2) {
        return problem("has a param group without AdamW's lr, betas, eps and weight_decay");
      }
      const std::optional<double> b1 = number(&tuples_[betas->index][0]), b2 = number(&tuples_[betas->index][1]);
      if (!b1 || !b2) return problem("has betas that are not numbers");
      group.lr = *lr;
      group.beta1 = *b1;
      group.beta2 = *b2;
      group.eps = *eps;
      group.weight_decay = *wd;
      const Value* amsgrad = entry(g, "amsgrad");
      group.amsgrad = amsgrad && amsgrad->kind == Kind::Bool && amsgrad->number != 0;
      result.groups.push_back(std::move(group));
    }
    for (const auto& [key, value] : dicts_[state->index]) {
      if (key.kind != Kind::Int) return problem("keys its state by " + std::string(kind_name(key.kind)));
      const std::string where = "state " + std::to_string(key.number);
      if (value.kind != Kind::Dict) return problem("has a " + where + " that is not a dict");
      PickledAdamEntry e;
      e.index = key.number;
      const Value* m = entry(value, "exp_avg");
      const Value* v = entry(value, "exp_avg_sq");
      const Value* step = entry(value, "step");
      if (!m || !v || m->kind != Kind::Tensor || v->kind != Kind::Tensor) {
        return problem("has a " + where + " without the tensors exp_avg and exp_avg_sq (not AdamW's?)");
      }
      if (step && step->kind == Kind::Tensor) {
        e.step_tensor = pickled_tensor(where + " step", *step);
      } else if (const std::optional<double> n = number(step)) {
        e.step = *n;
      } else {
        return problem("has a " + where + " without a step");
      }
      e.exp_avg = pickled_tensor(where + " exp_avg", *m);
      e.exp_avg_sq = pickled_tensor(where + " exp_avg_sq", *v);
      result.state.push_back(std::move(e));
    }
    out.optimizer = std::move(result);
  }

  // {name: tensor} of `dict`; `where` starts and `hint` ends the message of
  // an entry that is not a tensor.
  std::vector<PickledTensor> state_dict(const Value& dict, const std::string& where, const std::string& hint) {
    std::vector<PickledTensor> out;
    std::set<uint32_t> seen_names;  // a name's string row: a repeated row would copy it again
    for (const auto& [key, value] : dicts_[dict.index]) {
      if (key.kind != Kind::String)
        fail("pickle.key_not_string", {{"type", std::string(kind_name(key.kind))}},
             where + "state dict has a key that is " + std::string(kind_name(key.kind)));
      const std::string& name = strings_[key.index];
      if (value.kind != Kind::Tensor) {
        fail("pickle.entry_not_tensor", {{"tensor", name}, {"type", std::string(kind_name(value.kind))}},
             where + "state dict entry " + quoted(name) + " is " + kind_name(value.kind) + ", not a tensor" + hint);
      }
      if (!seen_names.insert(key.index).second)
        fail("pickle.duplicate_tensor", {{"tensor", name}}, where + "state dict names " + quoted(name) + " twice");
      out.push_back(pickled_tensor(name, value));
    }
    return out;
  }

  const uint8_t* p_;
  size_t size_;
  size_t pos_ = 0, op_pos_ = 0;
  uint8_t op_ = 0;
  std::vector<Value> stack_;
  std::vector<size_t> marks_;
  std::unordered_map<uint64_t, Value> memo_;
  std::vector<std::string> strings_;
  std::vector<std::vector<Value>> tuples_;
  std::vector<std::vector<Value>> lists_;
  std::vector<std::vector<std::pair<Value, Value>>> dicts_;
  std::vector<Storage> storages_;
  std::vector<TensorView> tensors_;
};

}  // namespace

PickledCheckpoint read_checkpoint_pickle(const uint8_t* bytes, size_t size) { return Unpickler(bytes, size).run(); }

}  // namespace minimind
