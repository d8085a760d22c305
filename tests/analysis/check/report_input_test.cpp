// report on input it cannot draw whole: points at size 0 on a log axis (nccl-tests' all_gather
// on more ranks than elements prints rows of size 0) and lines of records.jsonl it cannot read.
// Both must be said on the page, never silently squashed or dropped.
#include <string>

#include <gtest/gtest.h>

#include "analysis/report/report.h"
#include "analysis/report/svg.h"
#include "analysis/run_set.h"

namespace railgauge::report {
namespace {

std::size_t count_of(const std::string &text, const std::string &what) {
  std::size_t n = 0;
  for (auto at = text.find(what); at != std::string::npos; at = text.find(what, at + 1))
    ++n;
  return n;
}

TEST(ReportLogAxis, PointsAtSizeZeroAreLeftOutAndListed) {
  Series s{"all_gather in_place=0", {{0, 0}, {1024, 1.5}, {1 << 20, 80}}, {}};
  Series healthy{"all_gather in_place=1", {{1024, 1.4}, {1 << 20, 79}}, {}};
  const auto svg = line_chart("busbw", "size", "GB/s", {s, healthy}, true, true);
  EXPECT_NE(
      svg.find("not drawn (x &lt;= 0 on a log axis): all_gather in_place=0: 1 point at x = 0"),
      std::string::npos)
      << svg;
  EXPECT_EQ(count_of(svg, "class=\"left-out\""), 1u);
  // The axis spans the drawn sizes only: its first tick is not far below 1 KiB.
  const auto x = make_scale(1024, 1 << 20, 70, 620, true);
  EXPECT_NE(svg.find(tick_label(x.ticks().front(), true)), std::string::npos);
  EXPECT_EQ(svg.find("1e-300"), std::string::npos);
}

TEST(ReportLogAxis, ALinearAxisDrawsZero) {
  Series s{"a", {{0, 1}, {1, 2}}, {}};
  EXPECT_EQ(line_chart("t", "x", "y", {s}, false, false).find("not drawn"), std::string::npos);
}

TEST(ReportInputProblems, UndecodableLinesAreOnThePage) {
  analysis::RunSet runs;
  analysis::LoadedRun run;
  run.dir = "runs/a";
  runs.runs.push_back(run);
  runs.problems.push_back("runs/a/records.jsonl:4: not a complete JSON line (truncated write?)");
  ReportInput in;
  in.title = "t";
  in.runs = &runs;
  const auto rep = build_report(in);
  for (const auto *page : {&rep.html, &rep.markdown}) {
    EXPECT_NE(page->find("Input problems"), std::string::npos);
    EXPECT_NE(page->find("records.jsonl:4: not a complete JSON line"), std::string::npos);
  }
}

} // namespace
} // namespace railgauge::report
