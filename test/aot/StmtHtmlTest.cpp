// compile_to_lowered_stmt(..., HTML) and the stmt_html output: one
// self-contained page with the loop nest (each loop's kind, each allocation's
// size), the lowered program and the assembly, loops linked to their code.
// The last test opens the page in a real browser (Debian's chromium,
// headless), clicks a loop's summary and checks that its body stops being
// rendered and comes back.

#include <gtest/gtest.h>

#include <cstdlib>
#include <regex>
#include <set>

#include "AotTestSupport.h"
#include "loom/Loom.h"

using namespace loom;
using namespace loom_test;

namespace {

const Target kX86("x86-64-linux-avx2");

/** A tiled blur: the producer is computed per tile (a 32 x 9 float
 * allocation, 1152 bytes), the tile rows are unrolled by 2, the columns
 * vectorized by 8, the tiles' rows run in parallel. */
struct TiledBlur {
    ImageParam in{Float(32), 2, "in"};
    Func bx{"bx"}, by{"by"};
    Var x{"x"}, y{"y"}, xo{"xo"}, yo{"yo"}, xi{"xi"}, yi{"yi"};
    TiledBlur() {
        bx(x, y) = in(x, y) + in(x + 1, y);
        by(x, y) = bx(x, y) + bx(x, y + 1);
        by.tile(x, y, xo, yo, xi, yi, 32, 8).vectorize(xi, 8).unroll(yi, 2).parallel(yo);
        bx.compute_at(by, xo).vectorize(x, 8);
    }
};

size_t count(const std::string &text, const std::string &what) {
    size_t n = 0;
    for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + what.size())) n++;
    return n;
}

std::string html_of(TiledBlur &p, ScratchDir &dir) {
    p.by.compile_to_lowered_stmt(dir.file("by.stmt.html"), {p.in}, HTML, kX86);
    return read_file(dir.file("by.stmt.html"));
}

TEST(StmtHtml, ShowsEachLoopsKindAndEachAllocationsSize) {
    ScratchDir dir;
    TiledBlur p;
    const std::string html = html_of(p, dir);
    ASSERT_EQ(html.rfind("<!DOCTYPE html>", 0), 0u) << html.substr(0, 200);
    EXPECT_NE(html.find("pipeline by(in: buffer&lt;float32, 2D&gt;"), std::string::npos) << html.substr(0, 600);
    for (const char *kind : {"parallel", "vectorized", "unrolled", "serial"}) {
        EXPECT_NE(html.find(std::string("<span class=\"kind ") + kind + "\">" + kind + "</span>"), std::string::npos)
            << kind;
    }
    // The loop nest (before vectorization) names the tile loops with their kinds.
    const size_t nest = html.find("id=\"loop-nest\"");
    const size_t lowered = html.find("id=\"lowered\"");
    ASSERT_NE(nest, std::string::npos);
    ASSERT_NE(lowered, std::string::npos);
    const std::string nest_part = html.substr(nest, lowered - nest);
    EXPECT_NE(nest_part.find("by.s0.xi_vi in [0, 8) <span class=\"kind vectorized\">"), std::string::npos);
    EXPECT_NE(nest_part.find("by.s0.yi_ui in [0, 2) <span class=\"kind unrolled\">"), std::string::npos);
    // bx per tile: 32 x 9 floats.
    EXPECT_NE(html.find("<span class=\"size\">1152 bytes</span>"), std::string::npos);
    // Collapsible: every <details> closes, each loop is one.
    EXPECT_EQ(count(html, "<details"), count(html, "</details>"));
    EXPECT_GE(count(html, "<details open class=\"loop kind-"), 6u);
    // Self-contained: nothing fetched from elsewhere.
    EXPECT_EQ(html.find("http://"), std::string::npos);
    EXPECT_EQ(html.find("https://"), std::string::npos);
    EXPECT_EQ(html.find(" src="), std::string::npos);
}

TEST(StmtHtml, LoopsLinkToTheAssemblyTheyBecame) {
    ScratchDir dir;
    TiledBlur p;
    const std::string html = html_of(p, dir);
    ASSERT_NE(html.find("<div id=\"asm\">"), std::string::npos);
    // Every link lands on a line of the assembly pane.
    std::set<std::string> targets;
    const std::regex link("href=\"#(asm-[0-9]+)\"");
    for (auto it = std::sregex_iterator(html.begin(), html.end(), link); it != std::sregex_iterator(); ++it) {
        targets.insert((*it)[1]);
    }
    ASSERT_FALSE(targets.empty());
    for (const std::string &t : targets) EXPECT_NE(html.find("id=\"" + t + "\""), std::string::npos) << t;
    // The parallel loop links to its body function, a serial loop to its
    // own block label.
    auto line_of_link_after = [&](const std::string &anchor) -> std::string {
        const size_t at = html.find(anchor, html.find("id=\"lowered\""));
        if (at == std::string::npos) return "";
        std::smatch m;
        const std::string rest = html.substr(at, html.find("</summary>", at) - at);
        if (!std::regex_search(rest, m, link)) return "";
        const size_t line = html.find("id=\"" + std::string(m[1]) + "\">");
        return html.substr(line, html.find("</span>", line) - line);
    };
    EXPECT_NE(line_of_link_after("by.s0.yo in").find("by.par_for.by.s0.yo:"), std::string::npos)
        << line_of_link_after("by.s0.yo in");
    EXPECT_NE(line_of_link_after("by.s0.xo in").find("# %by.s0.xo.loop"), std::string::npos)
        << line_of_link_after("by.s0.xo in");
}

TEST(StmtHtml, GeneratorStyleOutputsAndTheTextFormatStillWork) {
    ScratchDir dir;
    TiledBlur p;
    p.by.compile_to({{OutputFileType::stmt_html, dir.file("a.stmt.html")}, {OutputFileType::stmt, dir.file("a.stmt")}},
                    {p.in}, "tiled", kX86);
    EXPECT_NE(read_file(dir.file("a.stmt.html")).find("pipeline tiled("), std::string::npos);
    EXPECT_EQ(read_file(dir.file("a.stmt")).rfind("// pipeline tiled(", 0), 0u);
    p.by.compile_to_lowered_stmt(dir.file("b.stmt"), {p.in}, Text, kX86);
    EXPECT_EQ(read_file(dir.file("b.stmt")).rfind("// pipeline by(", 0), 0u);
    EXPECT_EQ(output_file_info().at(OutputFileType::stmt_html).extension, ".stmt.html");
    EXPECT_EQ(output_file_info().at(OutputFileType::stmt_html).name, "stmt_html");
}

TEST(StmtHtml, BadFormatAndUnwritableFileAreErrors) {
    TiledBlur p;
    ScratchDir dir;
    EXPECT_THROW(p.by.compile_to_lowered_stmt(dir.file("x.html"), {p.in}, (StmtOutputFormat)7, kX86), CompileError);
    try {
        p.by.compile_to_lowered_stmt(dir.file("no/such/dir/x.html"), {p.in}, HTML, kX86);
        FAIL() << "expected a CompileError";
    } catch (const CompileError &e) {
        EXPECT_NE(std::string(e.what()).find("stmt_html"), std::string::npos) << e.what();
    }
}

/** Debian's chromium, or "" (the test then skips, except under CI=true, where
 * scripts/setup.sh installs it and a missing browser is a failure). */
std::string chromium() {
    for (const char *name : {"chromium", "chromium-browser", "google-chrome"}) {
        if (have_tool(name)) return name;
    }
    return "";
}

TEST(StmtHtml, RendersInABrowserAndLoopsCollapse) {
    const std::string browser = chromium();
    if (browser.empty()) {
        const char *ci = std::getenv("CI");
        if (ci && std::string(ci) == "true") FAIL() << "chromium is missing; scripts/setup.sh installs it";
        GTEST_SKIP() << "no chromium on this machine (apt-get install chromium)";
    }
    ScratchDir dir;
    TiledBlur p;
    std::string html = html_of(p, dir);
    // The page as written, plus a check run after it has rendered: the first
    // loop's body has a height, a click on its summary collapses it (no
    // longer rendered), a second click brings it back; "collapse all" closes
    // every loop.
    const std::string check = R"(<script>
(function () {
  var r = [];
  var d = document.querySelector('#loop-nest details.loop');
  var body = d.querySelector(':scope > .body');
  r.push('loops=' + document.querySelectorAll('details.loop').length);
  r.push('open_h=' + (body.getBoundingClientRect().height > 0 && body.checkVisibility()));
  d.querySelector(':scope > summary').click();
  r.push('closed=' + (!d.open) + ',' + (!body.checkVisibility()));
  d.querySelector(':scope > summary').click();
  r.push('reopened=' + d.open + ',' + (body.getBoundingClientRect().height > 0 && body.checkVisibility()));
  document.querySelector('.toolbar button').click();
  r.push('all_closed=' + (document.querySelectorAll('#code details[open]').length === 0));
  document.body.setAttribute('data-check', r.join(';'));
})();
</script>)";
    html.insert(html.rfind("</body>"), check);
    write_file(dir.file("check.html"), html);
    const CommandResult r = run_command(
        "timeout 120 " + browser +
        " --headless --no-sandbox --disable-gpu --disable-quic --no-first-run --disable-background-networking"
        " --disable-component-update --disable-sync --user-data-dir='" +
        dir.file("profile") + "' --dump-dom 'file://" + dir.file("check.html") + "' 2>/dev/null");
    ASSERT_EQ(r.exit_code, 0) << r.output.substr(0, 2000);
    std::smatch m;
    ASSERT_TRUE(std::regex_search(r.output, m, std::regex("data-check=\"([^\"]*)\""))) << r.output.substr(0, 2000);
    const std::string result = m[1];
    EXPECT_NE(result.find("open_h=true"), std::string::npos) << result;
    EXPECT_NE(result.find("closed=true,true"), std::string::npos) << result;
    EXPECT_NE(result.find("reopened=true,true"), std::string::npos) << result;
    EXPECT_NE(result.find("all_closed=true"), std::string::npos) << result;
    std::smatch loops;
    ASSERT_TRUE(std::regex_search(result, loops, std::regex("loops=([0-9]+)"))) << result;
    EXPECT_EQ(std::stoul(loops[1]), count(html, "<details open class=\"loop kind-")) << result;
}

}  // namespace
