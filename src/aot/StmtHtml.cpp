#include "aot/StmtHtml.h"

#include <map>
#include <sstream>
#include <vector>

#include "ir/IRPrinter.h"
#include "ir/IRUtil.h"
#include "loom/Error.h"

namespace loom {
namespace internal {

namespace {

std::string escape(const std::string &text) {
    std::string out;
    out.reserve(text.size());
    for (char c : text) {
        switch (c) {
        case '&': out += "&amp;"; break;
        case '<': out += "&lt;"; break;
        case '>': out += "&gt;"; break;
        case '"': out += "&quot;"; break;
        default: out += c;
        }
    }
    return out;
}

std::string expr_html(const Expr &e) { return escape(to_string(e)); }

/** One line of a leaf statement as the text printer writes it, without its
 * indentation and newline. */
std::string leaf_html(const Stmt &s) {
    std::string text = to_string(s);
    while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.pop_back();
    size_t start = text.find_first_not_of(' ');
    return escape(start == std::string::npos ? text : text.substr(start));
}

const char *memory_type_name(MemoryType t) {
    switch (t) {
    case MemoryType::Auto: return "auto";
    case MemoryType::Heap: return "heap";
    case MemoryType::Stack: return "stack";
    case MemoryType::Register: return "register";
    case MemoryType::GPUShared: return "gpu_shared";
    }
    return "unknown";
}

std::string for_type_name(ForType t) {
    std::ostringstream os;
    os << t;
    return os.str();
}

/** The labels of an assembly listing: each function's first line, and the
 * first line of each basic block LLVM names in its comments (`# %name`,
 * `// %name` on AArch64). */
struct AssemblyIndex {
    std::vector<std::string> lines;
    std::map<std::string, size_t> functions;                  // name -> line
    std::vector<std::pair<std::string, size_t>> blocks;  // in order

    explicit AssemblyIndex(const std::string &assembly) {
        std::istringstream in(assembly);
        for (std::string line; std::getline(in, line);) lines.push_back(line);
        for (size_t i = 0; i < lines.size(); i++) {
            const std::string &l = lines[i];
            if (l.empty() || l[0] == ' ' || l[0] == '\t') continue;
            const size_t colon = l.find(':');
            if (colon != std::string::npos && l[0] != '.' && l[0] != '#' && l[0] != '/' && l[0] != ';' &&
                l.find_first_of(" \t\"") > colon) {
                functions.emplace(l.substr(0, colon), i);
            }
            const size_t comment = l.find("%", colon == std::string::npos ? 0 : colon);
            if (colon == std::string::npos || comment == std::string::npos) continue;
            const size_t marker = l.find_last_of("#/;", comment);
            if (marker == std::string::npos || marker <= colon) continue;
            std::string name = l.substr(comment + 1);
            while (!name.empty() && (name.back() == ' ' || name.back() == '\r')) name.pop_back();
            if (name.size() >= 2 && name.front() == '"' && name.back() == '"') name = name.substr(1, name.size() - 2);
            if (!name.empty()) blocks.emplace_back(name, i);
        }
    }

    /** The line of the first block of loop `loop`'s body, or -1. */
    long loop_line(const std::string &loop) const {
        const std::string exact = loop + ".loop";
        long prefix_match = -1;
        for (const auto &[name, line] : blocks) {
            if (name == exact) return (long)line;
            if (prefix_match < 0 && name.rfind(exact, 0) == 0) prefix_match = (long)line;
        }
        return prefix_match;
    }

    long function_line(const std::string &name) const {
        auto it = functions.find(name);
        return it == functions.end() ? -1 : (long)it->second;
    }
};

/** Renders statements as nested <details>; loops link into the assembly. */
class HtmlWriter {
public:
    HtmlWriter(std::ostringstream &out, const AssemblyIndex *assembly, const std::string &pipeline)
        : out_(out), assembly_(assembly), pipeline_(pipeline) {}

    void stmt(const Stmt &s, long enclosing_asm_line) {
        if (!s.defined()) return;
        if (const Block *b = s.as<Block>()) {
            stmt(b->first, enclosing_asm_line);
            stmt(b->rest, enclosing_asm_line);
        } else if (const LetStmt *l = s.as<LetStmt>()) {
            line("<span class=\"kw\">let</span> " + escape(l->name) + " = " + expr_html(l->value));
            stmt(l->body, enclosing_asm_line);
        } else if (const For *f = s.as<For>()) {
            loop(f, enclosing_asm_line);
        } else if (const While *w = s.as<While>()) {
            open("loop kind-while", "<span class=\"kw\">while</span> (" + expr_html(w->condition) + ")");
            stmt(w->body, enclosing_asm_line);
            close();
        } else if (const ProducerConsumer *pc = s.as<ProducerConsumer>()) {
            open(pc->is_producer ? "produce" : "consume",
                 std::string("<span class=\"kw\">") + (pc->is_producer ? "produce" : "consume") + "</span> " +
                     escape(pc->name));
            stmt(pc->body, enclosing_asm_line);
            close();
        } else if (const Allocate *a = s.as<Allocate>()) {
            open("alloc", allocation_summary(a));
            stmt(a->body, enclosing_asm_line);
            close();
        } else if (const Realize *r = s.as<Realize>()) {
            std::string summary = "<span class=\"kw\">realize</span> " + escape(r->name);
            for (const Range &range : r->bounds) {
                summary += " [" + expr_html(range.min) + ", " + expr_html(range.extent) + "]";
            }
            open("alloc", summary);
            stmt(r->body, enclosing_asm_line);
            close();
        } else if (const Fork *fork = s.as<Fork>()) {
            // Func::async: the two halves run at once.
            open("if", "<span class=\"kw\">fork</span> (the async producer's half)");
            stmt(fork->first, enclosing_asm_line);
            close();
            open("if", "<span class=\"kw\">fork</span> (at the same time: the consumers' half)");
            stmt(fork->rest, enclosing_asm_line);
            close();
        } else if (const IfThenElse *i = s.as<IfThenElse>()) {
            open("if", "<span class=\"kw\">if</span> (" + expr_html(i->condition) + ")");
            stmt(i->then_case, enclosing_asm_line);
            close();
            if (i->else_case.defined()) {
                open("if", "<span class=\"kw\">else</span>");
                stmt(i->else_case, enclosing_asm_line);
                close();
            }
        } else {
            line(leaf_html(s));
        }
    }

    int loops() const { return loops_; }

private:
    void loop(const For *f, long enclosing_asm_line) {
        long asm_line = -1;
        if (assembly_) {
            asm_line = f->for_type == ForType::Parallel
                           ? assembly_->function_line(pipeline_ + ".par_for." + f->name)
                           : assembly_->loop_line(f->name);
        }
        const bool own_label = asm_line >= 0;
        if (!own_label) asm_line = enclosing_asm_line;
        const std::string kind = for_type_name(f->for_type);
        const std::string end = is_const_zero(f->min) ? expr_html(f->extent)
                                                      : expr_html(f->min) + " + " + expr_html(f->extent);
        std::string summary = "<span class=\"kw\">for</span> " + escape(f->name) + " in [" + expr_html(f->min) +
                              ", " + end + ") <span class=\"kind " + kind + "\">" + kind + "</span>";
        if (f->device_api == DeviceAPI::Vulkan) summary += " <span class=\"kind gpu\">vulkan</span>";
        if (asm_line >= 0) {
            summary += " <a class=\"asm-link\" href=\"#asm-" + std::to_string(asm_line) + "\" title=\"" +
                       (own_label ? "the first instruction of this loop's body"
                                  : "no label of its own (unrolled, vectorized or merged): the enclosing code") +
                       "\">asm</a>";
        }
        loops_++;
        open("loop kind-" + kind, summary);
        stmt(f->body, asm_line);
        close();
    }

    static std::string allocation_summary(const Allocate *a) {
        std::string summary = "<span class=\"kw\">allocate</span> " + escape(a->name) + "[" + type_name(a->type);
        int64_t elements = 1;
        bool constant = true;
        for (const Expr &e : a->extents) {
            summary += " * " + expr_html(e);
            if (const IntImm *imm = e.as<IntImm>()) {
                elements *= imm->value;
            } else {
                constant = false;
            }
        }
        summary += "]";
        const int bytes_per = a->type.bytes();
        summary += " <span class=\"size\">";
        if (constant) {
            summary += std::to_string(elements * bytes_per) + " bytes";
        } else {
            summary += "size known at run time: " + std::to_string(bytes_per) + " bytes per element";
        }
        summary += "</span> <span class=\"kind memory\">" + std::string(memory_type_name(a->memory_type)) + "</span>";
        if (a->condition.defined() && !is_const_one(a->condition)) summary += " if " + expr_html(a->condition);
        return summary;
    }

    static std::string type_name(const Type &t) {
        std::ostringstream os;
        os << t;
        return escape(os.str());
    }

    void open(const std::string &cls, const std::string &summary) {
        out_ << "<details open class=\"" << cls << "\"><summary>" << summary << "</summary><div class=\"body\">\n";
    }
    void close() { out_ << "</div></details>\n"; }
    void line(const std::string &html) { out_ << "<div class=\"line\">" << html << "</div>\n"; }

    std::ostringstream &out_;
    const AssemblyIndex *assembly_;
    std::string pipeline_;
    int loops_ = 0;
};

const char *kStyle = R"(
body { font-family: sans-serif; margin: 0; display: flex; height: 100vh; }
#code { flex: 1 1 55%; overflow: auto; padding: 0 1em; }
#asm { flex: 1 1 45%; overflow: auto; padding: 0 1em; border-left: 1px solid #ccc; background: #fafafa; }
h1 { font-size: 1.1em; font-family: monospace; } h2 { font-size: 1em; }
details, .line { font-family: monospace; font-size: 13px; white-space: pre-wrap; }
details > .body { margin-left: 1.5em; border-left: 1px dotted #bbb; padding-left: 0.5em; }
summary { cursor: pointer; }
.kw { font-weight: bold; color: #004; }
.kind { font-size: 11px; padding: 0 4px; border-radius: 3px; background: #ddd; }
.kind.parallel { background: #fcc; } .kind.vectorized { background: #cfc; } .kind.unrolled { background: #ccf; }
.kind.gpu_block, .kind.gpu_thread, .kind.gpu { background: #fc9; } .kind.memory { background: #eee; }
.size { color: #060; }
.asm-line { font-family: monospace; font-size: 12px; white-space: pre; display: block; }
.asm-line:target { background: #ff0; }
.asm-label { font-weight: bold; color: #400; }
.toolbar button { margin-right: 0.5em; }
)";

const char *kScript = R"(
function setAll(open) {
  document.querySelectorAll('#code details').forEach(function (d) { d.open = open; });
}
)";

}  // namespace

std::string stmt_html(const LoweredFunc &f, const Stmt &loop_nest, const std::string &assembly) {
    const std::string text = lowered_func_text(f);
    const std::string header = text.substr(0, text.find('\n'));
    AssemblyIndex index(assembly);
    const AssemblyIndex *asm_index = assembly.empty() ? nullptr : &index;
    const long function_line = asm_index ? asm_index->function_line(f.name) : -1;

    std::ostringstream out;
    out << "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>" << escape(f.name)
        << " (Loom stmt_html)</title>\n<style>" << kStyle << "</style><script>" << kScript << "</script></head>\n";
    out << "<body>\n<div id=\"code\">\n<h1>" << escape(header) << "</h1>\n";
    out << "<div class=\"toolbar\"><button type=\"button\" onclick=\"setAll(false)\">collapse all</button>"
        << "<button type=\"button\" onclick=\"setAll(true)\">expand all</button></div>\n";

    out << "<h2>Loop nest (before unrolling and vectorization)</h2>\n<div id=\"loop-nest\">\n";
    HtmlWriter nest(out, asm_index, f.name);
    nest.stmt(loop_nest.defined() ? loop_nest : f.body, function_line);
    out << "</div>\n<h2>Lowered program</h2>\n<div id=\"lowered\">\n";
    HtmlWriter lowered(out, asm_index, f.name);
    lowered.stmt(f.body, function_line);
    out << "</div>\n";
    for (const GPUKernel &k : f.kernels) {
        out << "<h2>GPU kernel " << escape(k.name) << " (workgroup " << k.workgroup_size[0] << "x"
            << k.workgroup_size[1] << "x" << k.workgroup_size[2] << ")</h2>\n<div class=\"kernel\">\n";
        HtmlWriter kernel(out, nullptr, f.name);
        kernel.stmt(k.body, -1);
        out << "</div>\n";
    }
    out << "</div>\n";

    if (asm_index) {
        std::vector<bool> is_label(index.lines.size(), false);
        for (const auto &[name, line] : index.functions) is_label[line] = true;
        for (const auto &[name, line] : index.blocks) is_label[line] = true;
        out << "<div id=\"asm\"><h2>Assembly</h2>\n";
        for (size_t i = 0; i < index.lines.size(); i++) {
            out << "<span class=\"asm-line" << (is_label[i] ? " asm-label" : "") << "\" id=\"asm-" << i << "\">"
                << escape(index.lines[i]) << "</span>";
        }
        out << "</div>\n";
    }
    out << "</body></html>\n";
    return out.str();
}

}  // namespace internal
}  // namespace loom
