// Xid events from /dev/kmsg records, and the health delta a GPU point's telemetry carries: the
// ECC and remapped-row counts and the Xid events logged between its two snapshots.
#include <gtest/gtest.h>

#include "harness/inventory/gpu_telemetry.h"
#include "harness/inventory/kernel_xids.h"

namespace railgauge {
namespace {

TEST(KernelXids, AnXidRecordIsParsedAndOtherRecordsAreNot) {
  // The driver's format (NVIDIA's Xid documentation): the bus id without its function.
  const auto x = parse_kmsg_xid("4,15231,1399140323,-;NVRM: Xid (PCI:0000:3b:00): 79, pid=0, "
                                "GPU has fallen off the bus.\n");
  ASSERT_TRUE(x);
  EXPECT_EQ(x->seq, 15231u);
  EXPECT_EQ(x->pci, "0000:3b:00");
  EXPECT_EQ(x->xid, 79);
  EXPECT_EQ(x->text, "Xid (PCI:0000:3b:00): 79, pid=0, GPU has fallen off the bus.");
  EXPECT_FALSE(parse_kmsg_xid("6,15232,1399140400,-;NVRM: GPU at PCI:0000:3b:00: GPU-34d7"));
  EXPECT_FALSE(parse_kmsg_xid("6,15233,1399140401,-;usb 1-1: new device"));
  EXPECT_FALSE(parse_kmsg_xid("no header at all"));
  EXPECT_TRUE(xid_names_gpu("0000:3B:00", "00000000:3b:00.0"));
  EXPECT_TRUE(xid_names_gpu("0000:3b:00", "0000:3b:00.0"));
  EXPECT_FALSE(xid_names_gpu("0000:3b:00", "0000:3c:00.0"));
}

TEST(KernelXids, AnUnreadableLogSaysWhy) {
  const auto log = read_kernel_xids("/nonexistent/kmsg");
  EXPECT_FALSE(log.available);
  EXPECT_NE(log.reason.find("No such file"), std::string::npos) << log.reason;
}

nlohmann::json snapshot(double ecc_uncorrected, double remapped, std::uint64_t last_seq,
                        nlohmann::json xids) {
  return {{"throttled", false},
          {"ecc_uncorrected_volatile", ecc_uncorrected},
          {"ecc_corrected_volatile", 0},
          {"remapped_rows_uncorrectable", remapped},
          {"remapped_rows_correctable", 0},
          {"remapped_rows_pending", 0},
          {"remapped_rows_failure", 0},
          {"kernel_log", {{"available", true}, {"last_seq", last_seq}, {"xids", xids}}}};
}

TEST(KernelXids, TheHealthDeltaCountsWhatMovedDuringThePoint) {
  const nlohmann::json old_xid = {{"seq", 10}, {"xid", 31}, {"text", "Xid ...: 31"}};
  const nlohmann::json new_xid = {{"seq", 500}, {"xid", 48}, {"text", "Xid ...: 48"}};
  // json::array, not {old_xid}: braces around one json are a one-element array to GCC but a copy
  // of the object to clang (the sanitizer build), whose xids would then be the object's values.
  const auto quiet =
      telemetry_pair(snapshot(2, 1, 100, nlohmann::json::array({old_xid})), {{"throttled", false}},
                     snapshot(2, 1, 140, nlohmann::json::array({old_xid})));
  EXPECT_EQ(quiet.at("health_delta").at("ecc_uncorrected_volatile"), 0);
  EXPECT_EQ(quiet.at("health_delta").at("xid_events"), 0); // the old Xid is not this point's
  const auto sick =
      telemetry_pair(snapshot(2, 1, 100, nlohmann::json::array({old_xid})), {{"throttled", false}},
                     snapshot(3, 2, 600, nlohmann::json::array({old_xid, new_xid})));
  EXPECT_EQ(sick.at("health_delta").at("ecc_uncorrected_volatile"), 1);
  EXPECT_EQ(sick.at("health_delta").at("remapped_rows_uncorrectable"), 1);
  EXPECT_EQ(sick.at("health_delta").at("xid_events"), 1);
  EXPECT_EQ(sick.at("health_delta").at("xids")[0].at("xid"), 48);
  // Without the kernel log (no root): null, and why.
  auto blind = snapshot(0, 0, 0, nlohmann::json::array());
  blind["kernel_log"] = {{"available", false}, {"reason", "/dev/kmsg: Permission denied"}};
  const auto unknown = telemetry_pair(blind, {}, blind);
  EXPECT_TRUE(unknown.at("health_delta").at("xid_events").is_null());
  EXPECT_EQ(unknown.at("health_delta").at("xid_note"), "/dev/kmsg: Permission denied");
}

} // namespace
} // namespace railgauge
