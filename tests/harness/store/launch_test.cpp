#include <atomic>
#include <filesystem>
#include <map>
#include <memory>
#include <netinet/in.h>
#include <sys/socket.h>
#include <thread>

#include <gtest/gtest.h>

#include "harness/launch.h"
#include "harness/store/socket.h"

namespace railgauge {
namespace {

using namespace std::chrono_literals;
namespace fs = std::filesystem;

Environment env_of(std::map<std::string, std::string> vars) {
  return [vars = std::move(vars)](const std::string &name) -> std::optional<std::string> {
    const auto it = vars.find(name);
    if (it == vars.end())
      return std::nullopt;
    return it->second;
  };
}

std::string input_error(const std::map<std::string, std::string> &vars) {
  try {
    launch_info_from(env_of(vars));
  } catch (const InputError &e) {
    return e.what();
  }
  return "no error";
}

TEST(LaunchInfo, NoLauncherIsOneRank) {
  const auto info = launch_info_from(env_of({}));
  EXPECT_EQ(info.world_size, 1);
  EXPECT_EQ(info.rank, 0);
  EXPECT_FALSE(info.mpi_launcher);
}

TEST(LaunchInfo, ReadsMpirunSrunAndPmix) {
  auto info = launch_info_from(env_of({{"OMPI_COMM_WORLD_SIZE", "8"},
                                       {"OMPI_COMM_WORLD_RANK", "5"},
                                       {"OMPI_COMM_WORLD_LOCAL_RANK", "1"},
                                       {"PMIX_RANK", "5"}}));
  EXPECT_EQ(info.world_size, 8);
  EXPECT_EQ(info.rank, 5);
  EXPECT_EQ(info.local_rank, 1);
  EXPECT_TRUE(info.mpi_launcher);
  EXPECT_EQ(info.source, "OMPI_COMM_WORLD_*");

  info = launch_info_from(
      env_of({{"SLURM_NTASKS", "16"}, {"SLURM_PROCID", "9"}, {"SLURM_LOCALID", "1"}}));
  EXPECT_EQ(info.world_size, 16);
  EXPECT_EQ(info.rank, 9);
  EXPECT_EQ(info.local_rank, 1);
  EXPECT_FALSE(info.mpi_launcher);
  EXPECT_EQ(info.source, "SLURM_*");

  // srun --mpi=pmix: the rank from PMIx, the size from Slurm.
  info =
      launch_info_from(env_of({{"PMIX_RANK", "3"}, {"SLURM_NTASKS", "4"}, {"SLURM_PROCID", "3"}}));
  EXPECT_EQ(info.world_size, 4);
  EXPECT_EQ(info.rank, 3);
  EXPECT_TRUE(info.mpi_launcher);
}

TEST(LaunchInfo, MpirunInsideASlurmAllocationIgnoresTheDaemonsSlurmVariables) {
  const auto info = launch_info_from(env_of({{"OMPI_COMM_WORLD_SIZE", "8"},
                                             {"OMPI_COMM_WORLD_RANK", "6"},
                                             {"SLURM_NTASKS", "2"},
                                             {"SLURM_PROCID", "1"}}));
  EXPECT_EQ(info.world_size, 8);
  EXPECT_EQ(info.rank, 6);
}

TEST(LaunchInfo, DisagreementAndMalformedValuesAreInputErrors) {
  EXPECT_NE(input_error(
                {{"OMPI_COMM_WORLD_SIZE", "4"}, {"OMPI_COMM_WORLD_RANK", "1"}, {"PMIX_RANK", "2"}})
                .find("disagree on the rank: OMPI_COMM_WORLD_RANK=1 but PMIX_RANK=2"),
            std::string::npos);
  EXPECT_NE(input_error({{"OMPI_COMM_WORLD_SIZE", "4"}, {"PMI_SIZE", "2"}, {"PMI_RANK", "0"}})
                .find("disagree on the world size"),
            std::string::npos);
  EXPECT_NE(input_error({{"SLURM_NTASKS", "four"}, {"SLURM_PROCID", "0"}})
                .find("SLURM_NTASKS='four' is not a whole number"),
            std::string::npos);
  EXPECT_NE(input_error({{"SLURM_NTASKS", "4"}, {"SLURM_PROCID", "-1"}}).find("not a whole number"),
            std::string::npos);
  EXPECT_NE(input_error({{"SLURM_NTASKS", "4"}, {"SLURM_PROCID", "4"}})
                .find("rank 4 of a world of 4 ranks"),
            std::string::npos);
  EXPECT_NE(input_error({{"SLURM_PROCID", "0"}}).find("SLURM_NTASKS is not"), std::string::npos);
  EXPECT_NE(input_error({{"OMPI_COMM_WORLD_SIZE", "4"}}).find("but no rank is"), std::string::npos);
  EXPECT_NE(
      input_error({{"SLURM_NTASKS", "0"}, {"SLURM_PROCID", "0"}}).find("rank 0 of a world of 0"),
      std::string::npos);
}

class TempDir {
public:
  TempDir()
      : path_(fs::temp_directory_path() /
              ("railgauge-launch-" + std::to_string(::getpid()) + "-" +
               ::testing::UnitTest::GetInstance()->current_test_info()->name())) {
    fs::remove_all(path_);
    fs::create_directories(path_);
  }
  ~TempDir() { fs::remove_all(path_); }
  std::string str() const { return path_.string(); }

private:
  fs::path path_;
};

// A free port on loopback for a fixed-port store URL: taken from the kernel, then released.
std::uint16_t free_port() {
  UniqueFd fd = listen_on({"127.0.0.1", 0});
  return bound_port(fd.get());
}

TEST(World, OneRankKeepsTodaysLayoutAndHasAnInMemoryStore) {
  TempDir out;
  World world(launch_info_from(env_of({})), {}, env_of({}), "hostA");
  ASSERT_NE(world.store(), nullptr);
  const auto id = world.create_run_directory(out.str());
  EXPECT_EQ(fs::path(id.dir).parent_path(), fs::path(out.str()));
  world.barrier("start"); // nothing to wait for
  EXPECT_EQ(world.describe()["size"], 1);
}

TEST(World, RanksAsThreadsAgreeOnOneRunDirectoryWithADirectoryPerRank) {
  TempDir out;
  constexpr int kWorld = 3;
  const std::string url = "tcp://127.0.0.1:" + std::to_string(free_port());
  std::vector<RunIdentity> ids(kWorld);
  std::vector<std::string> errors(kWorld);
  std::vector<std::thread> ranks;
  for (int r = 0; r < kWorld; ++r)
    ranks.emplace_back([&, r] {
      try {
        const auto env = env_of({{"SLURM_NTASKS", std::to_string(kWorld)},
                                 {"SLURM_PROCID", std::to_string(r)},
                                 {"SLURM_JOB_ID", "4242"},
                                 {"SLURM_STEP_ID", "0"}});
        World world(launch_info_from(env), {url, 10'000ms}, env, "host" + std::to_string(r));
        ids[r] = world.create_run_directory(out.str());
        world.barrier("start");
        EXPECT_EQ(world.describe()["store"], url);
        world.barrier("end");
      } catch (const std::exception &e) {
        errors[r] = e.what();
      }
    });
  for (auto &t : ranks)
    t.join();
  for (int r = 0; r < kWorld; ++r) {
    EXPECT_EQ(errors[r], "");
    EXPECT_EQ(ids[r].run_id, ids[0].run_id);
    EXPECT_EQ(ids[r].rank, r);
    EXPECT_EQ(fs::path(ids[r].dir),
              fs::path(out.str()) / ids[0].run_id / ("rank-0000" + std::to_string(r)));
    EXPECT_TRUE(fs::is_directory(ids[r].dir));
  }
  EXPECT_NE(ids[0].run_id.find("host0"), std::string::npos); // rank 0 names the run
}

TEST(World, ABarrierNamesTheRankThatNeverCame) {
  constexpr int kWorld = 3;
  const std::string url = "tcp://127.0.0.1:" + std::to_string(free_port());
  std::vector<std::string> errors(kWorld);
  std::vector<std::thread> ranks;
  for (int r : {0, 2}) // rank 1 never starts
    ranks.emplace_back([&, r] {
      const auto env = env_of({{"SLURM_NTASKS", "3"},
                               {"SLURM_PROCID", std::to_string(r)},
                               {"RAILGAUGE_RUN_TOKEN", "t"}});
      try {
        World world(launch_info_from(env), {url, 300ms}, env, "h");
        world.barrier("start");
      } catch (const StoreTimeout &e) {
        errors[r] = e.what();
      } catch (const PeerLost &e) { // rank 0, when rank 2 gave up first and hung up
        errors[r] = e.what();
      }
    });
  for (auto &t : ranks)
    t.join();
  // Rank 0 times out too, or first sees rank 2 leave (it gave up on rank 1): either way rank 1
  // is named as the one that never came.
  for (int r : {0, 2})
    EXPECT_TRUE(errors[r].find("barrier 'railgauge/start': rank 1 of 3 did not arrive") !=
                    std::string::npos ||
                (r == 0 && errors[r].find("; and rank 1 of 3 never arrived") != std::string::npos))
        << errors[r];
}

TEST(World, RankZeroNamesTheAbsentRankWhenAnotherGaveUpOnIt) {
  // Rank 2 arrives, waits 100 ms for rank 1 and leaves; rank 0, still waiting, sees rank 2 lost
  // and must still say that rank 1 never came (and not that rank 2, which is named lost, did not).
  constexpr int kWorld = 3;
  const std::string url = "tcp://127.0.0.1:" + std::to_string(free_port());
  std::vector<std::string> errors(kWorld);
  std::vector<std::thread> ranks;
  for (int r : {0, 2})
    ranks.emplace_back([&, r] {
      const auto env = env_of({{"SLURM_NTASKS", "3"},
                               {"SLURM_PROCID", std::to_string(r)},
                               {"RAILGAUGE_RUN_TOKEN", "t"}});
      try {
        World world(launch_info_from(env), {url, r == 0 ? 20000ms : 100ms}, env, "h");
        world.barrier("start");
      } catch (const std::exception &e) {
        errors[r] = e.what();
      }
    });
  for (auto &t : ranks)
    t.join();
  EXPECT_NE(errors[0].find("barrier 'railgauge/start': store: rank 2 is lost"), std::string::npos)
      << errors[0];
  EXPECT_NE(errors[0].find("; and rank 1 of 3 never arrived"), std::string::npos) << errors[0];
  EXPECT_NE(errors[2].find("rank 1 of 3 did not arrive"), std::string::npos) << errors[2];
}

// A rank killed mid-run is named with its host for run.json (lost_ranks), on rank 0 and on a
// survivor alike, so that check drains its node and not theirs; a survivor that hangs up after
// reaching the end barrier ended on learning of the loss and is not named.
TEST(World, TheLostRankIsNamedWithItsHostButNotASurvivorThatEndedAfterIt) {
  constexpr int kWorld = 3;
  const std::string url = "tcp://127.0.0.1:" + std::to_string(free_port());
  std::vector<nlohmann::json> lost(kWorld);
  std::vector<std::string> errors(kWorld);
  nlohmann::json lost_after_survivor_left;
  std::atomic<bool> survivor_left{false};
  bool survivor_listed = false;
  std::vector<std::thread> ranks;
  for (int r = 0; r < kWorld; ++r)
    ranks.emplace_back([&, r] {
      const auto env = env_of({{"SLURM_NTASKS", "3"},
                               {"SLURM_PROCID", std::to_string(r)},
                               {"RAILGAUGE_RUN_TOKEN", "t"}});
      try {
        auto owned = std::make_unique<World>(launch_info_from(env), StoreSettings{url, 10'000ms},
                                             env, std::string("node-") + "abc"[r]);
        World &world = *owned;
        world.barrier("start");
        if (r == 1)
          return; // its connection closes, as a killed rank's does
        try {
          world.barrier("end");
        } catch (const PeerLost &e) {
          errors[r] = e.what();
          lost[r] = world.lost_ranks();
        }
        if (r == 2) {
          owned.reset(); // hangs up, as a survivor that ends does
          survivor_left = true;
          return;
        }
        while (!survivor_left)
          std::this_thread::sleep_for(1ms);
        // Rank 0's store lists rank 2 as lost too once its connection closed.
        const auto deadline = SteadyClock::now() + 5s;
        while (!(survivor_listed =
                     world.store()->get("railgauge/lost-ranks", 0ms).find("\n2 rank 2 is lost") !=
                     std::string::npos) &&
               SteadyClock::now() < deadline)
          std::this_thread::sleep_for(1ms);
        lost_after_survivor_left = world.lost_ranks();
      } catch (const std::exception &e) {
        errors[r] = std::string("unexpected: ") + e.what();
        survivor_left = true;
      }
    });
  for (auto &t : ranks)
    t.join();
  for (int r : {0, 2}) {
    EXPECT_NE(errors[r].find("rank 1 is lost"), std::string::npos) << errors[r];
    ASSERT_EQ(lost[r].size(), 1u) << lost[r].dump();
    EXPECT_EQ(lost[r][0]["rank"], 1);
    EXPECT_EQ(lost[r][0]["host"], "node-b");
    EXPECT_TRUE(lost[r][0]["reason"].get<std::string>().starts_with(
        "rank 1 is lost: its connection to the store"))
        << lost[r].dump();
  }
  EXPECT_TRUE(survivor_listed);
  EXPECT_EQ(lost_after_survivor_left, lost[0]);
}

TEST(World, SeveralRanksNeedAStoreAndATokenAndAPort) {
  const auto slurm =
      std::map<std::string, std::string>{{"SLURM_NTASKS", "2"}, {"SLURM_PROCID", "1"}};
  auto error_of = [&](StoreSettings settings, std::map<std::string, std::string> extra) {
    auto vars = slurm;
    vars.insert(extra.begin(), extra.end());
    const auto env = env_of(vars);
    try {
      World world(launch_info_from(env), settings, env, "h");
    } catch (const InputError &e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_NE(error_of({}, {}).find("2 ranks (from SLURM_*) but no store to meet in"),
            std::string::npos);
  EXPECT_NE(error_of({"tcp://127.0.0.1:1"}, {}).find("no run token"), std::string::npos);
  EXPECT_NE(error_of({"tcp://127.0.0.1:0"}, {{"RAILGAUGE_RUN_TOKEN", "t"}})
                .find("the other ranks cannot find port 0"),
            std::string::npos);
  EXPECT_NE(error_of({}, {{"RAILGAUGE_STORE", "http://x:1"}}).find("RAILGAUGE_STORE"),
            std::string::npos);
}

TEST(TcpUrl, ParsesHostsPortsAndIpv6) {
  EXPECT_EQ(parse_tcp_url("tcp://node017:29500", "--store").to_string(), "node017:29500");
  EXPECT_EQ(parse_tcp_url("tcp://[fd00::1]:0", "--store").host, "fd00::1");
  for (const char *bad :
       {"node:1", "tcp://node", "tcp://:1", "tcp://n:99999", "tcp://n:1x", "tcp://[::1:5"})
    EXPECT_THROW(parse_tcp_url(bad, "--store"), InputError) << bad;
}

} // namespace
} // namespace railgauge
