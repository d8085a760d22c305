#include "collectives/mpi/mpi_session.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <sched.h>
#include <set>
#include <thread>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "collectives/watchdog_grace.h"

namespace railgauge::collectives {
namespace {

using Clock = std::chrono::steady_clock;
constexpr int kCensusTag = 7001;
constexpr int kDoneTag = 7002;
constexpr int kArrivalTag = 7003; // on MPI_COMM_WORLD, before the session's own communicators
constexpr int kArrivalHereTag = 7004;

Clock::time_point after(double seconds) {
  return Clock::now() +
         std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(seconds));
}

// Cancels `request` if it is still pending and completes it; true when it was cancelled, false
// when it had completed (or completes before the cancel takes).
bool cancelled_after_cancel(MPI_Request &request) {
  if (request == MPI_REQUEST_NULL)
    return false;
  int done = 0;
  MPI_Test(&request, &done, MPI_STATUS_IGNORE);
  if (done)
    return false;
  MPI_Cancel(&request);
  MPI_Status status;
  MPI_Wait(&request, &status);
  int cancelled = 0;
  MPI_Test_cancelled(&status, &cancelled);
  return cancelled != 0;
}

// Polls `requests` until all are complete or `deadline`; true when all completed.
bool test_until(std::vector<MPI_Request> &requests, Clock::time_point deadline) {
  for (;;) {
    int done = 0;
    MPI_Testall(static_cast<int>(requests.size()), requests.data(), &done, MPI_STATUSES_IGNORE);
    if (done)
      return true;
    if (Clock::now() > deadline)
      return false;
    std::this_thread::sleep_for(std::chrono::microseconds(200));
  }
}

template <DType T, RedOp O> void half_op(void *in, void *inout, int *len, MPI_Datatype *) {
  reduce_into(T, O, inout, in, static_cast<std::size_t>(*len));
}

const char *env(const char *name) { return std::getenv(name); }

} // namespace

bool launched_by_mpi_launcher() {
  for (const char *v : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_RANK", "MPI_LOCALNRANKS"})
    if (env(v))
      return true;
  return false;
}

MpiSession::MpiSession(double arrival_timeout_s) {
  int already = 0;
  MPI_Initialized(&already);
  if (!already) {
    int provided = 0;
    check_mpi(MPI_Init_thread(nullptr, nullptr, MPI_THREAD_FUNNELED, &provided), "MPI_Init_thread");
    initialised_here_ = true;
  }
  MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
  MPI_Comm_size(MPI_COMM_WORLD, &size_);
  never_arrived_ = arrival_census(arrival_timeout_s);
  if (!never_arrived_.empty()) {
    broken_ = fmt::format("watchdog: rank{} {} of {} did not arrive at the first MPI point within "
                          "{} s (rank {} waited)",
                          never_arrived_.size() == 1 ? "" : "s", fmt::join(never_arrived_, ", "),
                          size_, arrival_timeout_s, rank_);
    std::cerr << "railgauge: " << *broken_ << '\n';
    // The ranks that came, and this one (a rank only late is told it is missing, and reports it).
    for (int r = 0; r < size_; ++r)
      if (r == rank_ ||
          std::find(never_arrived_.begin(), never_arrived_.end(), r) == never_arrived_.end())
        survivors_.push_back(r);
    return; // no communicator can be made without the missing ranks
  }
  check_mpi(MPI_Comm_dup(MPI_COMM_WORLD, &world_), "MPI_Comm_dup");
  check_mpi(MPI_Comm_dup(MPI_COMM_WORLD, &census_), "MPI_Comm_dup");
  MPI_Comm_set_errhandler(world_, MPI_ERRORS_RETURN);
  MPI_Comm_set_errhandler(census_, MPI_ERRORS_RETURN);
  if (const char *local = env("OMPI_COMM_WORLD_LOCAL_SIZE"))
    yield_ = std::atoi(local) > static_cast<int>(std::thread::hardware_concurrency());
  MPI_User_function *fns[] = {half_op<DType::bf16, RedOp::sum>, half_op<DType::bf16, RedOp::prod>,
                              half_op<DType::bf16, RedOp::max>, half_op<DType::bf16, RedOp::min>,
                              half_op<DType::f16, RedOp::sum>,  half_op<DType::f16, RedOp::prod>,
                              half_op<DType::f16, RedOp::max>,  half_op<DType::f16, RedOp::min>};
  for (auto *fn : fns) {
    MPI_Op op;
    check_mpi(MPI_Op_create(fn, 1, &op), "MPI_Op_create");
    half_ops_.push_back(op);
  }
}

MpiSession::~MpiSession() {
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (finalized)
    return; // whoever initialised MPI has finalised it: nothing may be freed any more
  if (broken_) {
    // A rank is dead or hung: MPI_Finalize would wait for it. Records are written by now.
    // Before the session's communicators exist (a rank never arrived), on the world itself.
    const MPI_Comm done_comm = census_ != MPI_COMM_NULL ? census_ : MPI_COMM_WORLD;
    int marker = rank_;
    std::vector<MPI_Request> sends;
    for (int r : survivors_) {
      MPI_Request req;
      if (r != rank_ && MPI_Isend(&marker, 1, MPI_INT, r, kDoneTag, done_comm, &req) == MPI_SUCCESS)
        sends.push_back(req);
    }
    std::set<int> done{rank_};
    const auto until = Clock::now() + grace_period(5.0);
    while (done.size() < survivors_.size() && Clock::now() < until) {
      int flag = 0;
      MPI_Status status;
      MPI_Iprobe(MPI_ANY_SOURCE, kDoneTag, done_comm, &flag, &status);
      if (flag) {
        int from = 0;
        MPI_Recv(&from, 1, MPI_INT, status.MPI_SOURCE, kDoneTag, done_comm, MPI_STATUS_IGNORE);
        // Only survivors count: a rank that saw the census differently may say it is done too.
        if (std::find(survivors_.begin(), survivors_.end(), status.MPI_SOURCE) != survivors_.end())
          done.insert(status.MPI_SOURCE);
      } else {
        std::this_thread::sleep_for(std::chrono::microseconds(200));
      }
    }
    std::cerr << "railgauge: aborting the MPI job after a watchdog expiry: " << *broken_ << '\n';
    MPI_Abort(MPI_COMM_WORLD, 3);
    return;
  }
  for (auto &op : half_ops_)
    MPI_Op_free(&op);
  for (auto &[name, comm] : splits_)
    MPI_Comm_free(&comm);
  MPI_Comm_free(&census_);
  MPI_Comm_free(&world_);
  if (initialised_here_)
    MPI_Finalize();
}

std::vector<int> MpiSession::arrival_census(double timeout_s) {
  if (size_ == 1)
    return {};
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  // The buffers are members: a request left pending when a rank gives up (a send to a rank that
  // never came, a reply that never came) must not write into freed memory later.
  arrival_reply_.assign(static_cast<std::size_t>(size_) + 1, 0); // [k, the k missing ranks]
  arrival_marker_ = rank_;
  const auto grace = grace_period(timeout_s);
  if (rank_ != 0) {
    // Rank 0 says "here" when it arrives, and answers by its own deadline, a timeout later.
    std::vector<MPI_Request> here(2), verdict(1);
    MPI_Isend(&arrival_marker_, 1, MPI_INT, 0, kArrivalTag, MPI_COMM_WORLD, &here[0]);
    MPI_Irecv(&arrival_here_, 1, MPI_INT, 0, kArrivalHereTag, MPI_COMM_WORLD, &here[1]);
    MPI_Irecv(arrival_reply_.data(), size_ + 1, MPI_INT, 0, kArrivalTag, MPI_COMM_WORLD,
              &verdict[0]);
    const bool heard =
        test_until(here, after(timeout_s) + grace) || !cancelled_after_cancel(here[1]);
    if (!heard) {
      cancelled_after_cancel(verdict[0]);
      if (here[0] != MPI_REQUEST_NULL)
        MPI_Request_free(&here[0]); // its buffer is a member
      return {0};                   // rank 0, which collects the arrivals, never came
    }
    if (!test_until(verdict, after(timeout_s) + 2 * grace) && cancelled_after_cancel(verdict[0]))
      return {0}; // rank 0 came but gave no verdict
    if (here[0] != MPI_REQUEST_NULL)
      MPI_Request_free(&here[0]);
    return {arrival_reply_.begin() + 1, arrival_reply_.begin() + 1 + arrival_reply_[0]};
  }
  std::vector<MPI_Request> here_sends;
  for (int r = 1; r < size_; ++r) {
    MPI_Request req;
    MPI_Isend(&arrival_marker_, 1, MPI_INT, r, kArrivalHereTag, MPI_COMM_WORLD, &req);
    here_sends.push_back(req);
  }
  arrival_from_.assign(static_cast<std::size_t>(size_), 0);
  std::vector<MPI_Request> recvs(static_cast<std::size_t>(size_) - 1);
  for (int r = 1; r < size_; ++r)
    MPI_Irecv(&arrival_from_[static_cast<std::size_t>(r)], 1, MPI_INT, r, kArrivalTag,
              MPI_COMM_WORLD, &recvs[static_cast<std::size_t>(r) - 1]);
  test_until(recvs, after(timeout_s));
  std::vector<int> missing;
  for (int r = 1; r < size_; ++r)
    if (cancelled_after_cancel(recvs[static_cast<std::size_t>(r) - 1]))
      missing.push_back(r);
  arrival_reply_[0] = static_cast<int>(missing.size());
  std::copy(missing.begin(), missing.end(), arrival_reply_.begin() + 1);
  // Every rank gets the verdict, the missing ones too: one that is only late then reports itself
  // missing instead of blaming rank 0.
  std::vector<MPI_Request> sends;
  for (int r = 1; r < size_; ++r) {
    MPI_Request req;
    MPI_Isend(arrival_reply_.data(), size_ + 1, MPI_INT, r, kArrivalTag, MPI_COMM_WORLD, &req);
    sends.push_back(req);
  }
  sends.insert(sends.end(), here_sends.begin(), here_sends.end());
  // Sends to ranks that came complete at once; any still pending (a rank that never came) are
  // freed: their buffers are members, and the session is broken then, so MPI_Finalize never runs.
  test_until(sends, Clock::now() + grace);
  for (auto &req : sends)
    if (req != MPI_REQUEST_NULL)
      MPI_Request_free(&req);
  return missing;
}

const std::vector<std::string> &MpiSession::hosts(double timeout_s) {
  if (!hosts_.empty())
    return hosts_;
  std::vector<char> mine(MPI_MAX_PROCESSOR_NAME, '\0');
  int len = 0;
  MPI_Get_processor_name(mine.data(), &len);
  std::vector<char> all(mine.size() * static_cast<std::size_t>(size_));
  MPI_Request req;
  check_mpi(MPI_Iallgather(mine.data(), MPI_MAX_PROCESSOR_NAME, MPI_CHAR, all.data(),
                           MPI_MAX_PROCESSOR_NAME, MPI_CHAR, world_, &req),
            "MPI_Iallgather");
  wait(req, "all-gather of host names", timeout_s);
  for (int r = 0; r < size_; ++r) {
    const char *name = all.data() + static_cast<std::size_t>(r) * MPI_MAX_PROCESSOR_NAME;
    hosts_.emplace_back(name, strnlen(name, MPI_MAX_PROCESSOR_NAME));
  }
  return hosts_;
}

int MpiSession::host_count(const std::vector<int> &ranks, double timeout_s) {
  const auto &all = hosts(timeout_s);
  if (ranks.empty())
    return static_cast<int>(std::set<std::string>(all.begin(), all.end()).size());
  std::set<std::string> distinct;
  for (int r : ranks)
    distinct.insert(all.at(static_cast<std::size_t>(r)));
  return static_cast<int>(distinct.size());
}

void MpiSession::throw_if_broken() {
  if (!broken_)
    return;
  if (!never_arrived_.empty() && !arrival_reported_) {
    arrival_reported_ = true;
    throw CollectiveTimeout(*broken_, never_arrived_);
  }
  throw BackendError("MPI communicator unusable after a watchdog expiry: " + *broken_);
}

std::string MpiSession::library_version() const {
  char text[MPI_MAX_LIBRARY_VERSION_STRING] = {};
  int len = 0;
  MPI_Get_library_version(text, &len);
  std::string v(text, static_cast<std::size_t>(len));
  if (const auto nl = v.find_first_of("\n,"); nl != std::string::npos)
    v.resize(nl);
  return v;
}

MPI_Datatype MpiSession::datatype(DType type) const {
  switch (type) {
  case DType::f32:
    return MPI_FLOAT;
  case DType::f64:
    return MPI_DOUBLE;
  case DType::i32:
    return MPI_INT32_T;
  case DType::bf16:
  case DType::f16:
    return MPI_UINT16_T;
  }
  return MPI_BYTE;
}

MPI_Op MpiSession::op(DType type, RedOp op) const {
  const int k = static_cast<int>(op);
  if (type == DType::bf16)
    return half_ops_[static_cast<std::size_t>(k)];
  if (type == DType::f16)
    return half_ops_[static_cast<std::size_t>(4 + k)];
  switch (op) {
  case RedOp::sum:
    return MPI_SUM;
  case RedOp::prod:
    return MPI_PROD;
  case RedOp::max:
    return MPI_MAX;
  case RedOp::min:
    return MPI_MIN;
  }
  return MPI_SUM;
}

bool MpiSession::census_pending() {
  int flag = 0;
  MPI_Iprobe(MPI_ANY_SOURCE, kCensusTag, census_, &flag, MPI_STATUS_IGNORE);
  return flag != 0;
}

void MpiSession::wait(MPI_Request &request, const std::string &what, double timeout_s) {
  std::vector<MPI_Request> one{request};
  wait_all(one, what, timeout_s);
  request = one[0];
}

void MpiSession::wait_all(std::vector<MPI_Request> &requests, const std::string &what,
                          double timeout_s) {
  std::vector<std::vector<MPI_Request>> one{std::move(requests)};
  wait_each(one, Clock::now(), what, timeout_s);
  requests = std::move(one.front());
}

std::vector<double> MpiSession::wait_each(std::vector<std::vector<MPI_Request>> &sets,
                                          Clock::time_point since, const std::string &what,
                                          double timeout_s) {
  if (broken_)
    throw BackendError("MPI communicator unusable after a watchdog expiry: " + *broken_);
  const auto deadline = Clock::now() + std::chrono::duration_cast<Clock::duration>(
                                           std::chrono::duration<double>(timeout_s));
  std::vector<double> done_s(sets.size(), -1);
  std::size_t pending = sets.size();
  for (unsigned spin = 0; pending > 0; ++spin) {
    for (std::size_t i = 0; i < sets.size(); ++i) {
      if (done_s[i] >= 0)
        continue;
      int done = 0;
      check_mpi(
          MPI_Testall(static_cast<int>(sets[i].size()), sets[i].data(), &done, MPI_STATUSES_IGNORE),
          "MPI_Testall");
      if (done) {
        done_s[i] = std::chrono::duration<double>(Clock::now() - since).count();
        --pending;
      }
    }
    if (pending == 0)
      break;
    if (yield_)
      sched_yield();
    if (spin % 64 == 63) {
      if (Clock::now() > deadline)
        fire(what, timeout_s, false);
      if (census_pending())
        fire(what, timeout_s, true);
    }
  }
  return done_s;
}

void MpiSession::fire(const std::string &what, double timeout_s, bool heard_census) {
  // Tell every rank, then collect answers for a grace period: ranks waiting in wait_all() see
  // the census within a millisecond and answer with their own.
  std::vector<MPI_Request> sends;
  census_marker_ = rank_; // a member: these sends stay pending after the throw below
  for (int r = 0; r < size_; ++r) {
    if (r == rank_)
      continue;
    MPI_Request req;
    if (MPI_Isend(&census_marker_, 1, MPI_INT, r, kCensusTag, census_, &req) == MPI_SUCCESS)
      sends.push_back(req);
  }
  std::set<int> heard{rank_};
  const auto until = Clock::now() + grace_period(timeout_s);
  while (Clock::now() < until && static_cast<int>(heard.size()) < size_) {
    int flag = 0;
    MPI_Status status;
    MPI_Iprobe(MPI_ANY_SOURCE, kCensusTag, census_, &flag, &status);
    if (flag) {
      int from = 0;
      MPI_Recv(&from, 1, MPI_INT, status.MPI_SOURCE, kCensusTag, census_, MPI_STATUS_IGNORE);
      heard.insert(status.MPI_SOURCE);
    } else {
      std::this_thread::sleep_for(std::chrono::microseconds(200));
    }
  }
  std::vector<int> missing;
  for (int r = 0; r < size_; ++r)
    if (!heard.count(r))
      missing.push_back(r);
  survivors_.assign(heard.begin(), heard.end());
  const std::string who = missing.empty() ? std::string("every rank answered the census")
                                          : fmt::format("rank{} {} of {} did not answer",
                                                        missing.size() == 1 ? "" : "s",
                                                        fmt::join(missing, ", "), size_);
  const std::string msg =
      heard_census
          ? fmt::format("watchdog: {} abandoned on rank {}: another rank's watchdog fired; {}",
                        what, rank_, who)
          : fmt::format("watchdog: {} not complete within {} s on rank {}; {}", what, timeout_s,
                        rank_, who);
  broken_ = msg;
  std::cerr << "railgauge: " << msg << '\n';
  throw CollectiveTimeout(msg, missing);
}

void MpiSession::barrier(MPI_Comm comm, double timeout_s) {
  MPI_Request req;
  check_mpi(MPI_Ibarrier(comm, &req), "MPI_Ibarrier");
  wait(req, "barrier", timeout_s);
}

std::vector<double> MpiSession::all_gather(MPI_Comm comm, const std::vector<double> &mine,
                                           double timeout_s) {
  int n = 0;
  MPI_Comm_size(comm, &n);
  std::vector<double> all(mine.size() * static_cast<std::size_t>(n));
  MPI_Request req;
  check_mpi(MPI_Iallgather(mine.data(), static_cast<int>(mine.size()), MPI_DOUBLE, all.data(),
                           static_cast<int>(mine.size()), MPI_DOUBLE, comm, &req),
            "MPI_Iallgather");
  wait(req, "all-gather of iteration times", timeout_s);
  return all;
}

long long MpiSession::all_reduce_sum(MPI_Comm comm, long long mine, double timeout_s) {
  long long sum = 0;
  MPI_Request req;
  check_mpi(MPI_Iallreduce(&mine, &sum, 1, MPI_LONG_LONG, MPI_SUM, comm, &req), "MPI_Iallreduce");
  wait(req, "all-reduce of the data check", timeout_s);
  return sum;
}

MPI_Comm MpiSession::split(const std::string &name, int colour, int key, double timeout_s) {
  for (const auto &[n, comm] : splits_)
    if (n == name)
      return comm;
  // MPI_Comm_split blocks until every rank calls it: a guarded barrier first, so that a rank
  // that is not coming is named by the watchdog instead of hanging the split.
  barrier(world_, timeout_s);
  MPI_Comm comm;
  check_mpi(MPI_Comm_split(world_, colour, key, &comm), "MPI_Comm_split");
  MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
  splits_.emplace_back(name, comm);
  return comm;
}

int MpiFamily::world_size_hint() const {
  if (session_)
    return session_->size();
  if (!launched_by_mpi_launcher())
    return 1;
  for (const char *v : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "SLURM_NTASKS"})
    if (const char *s = env(v))
      return std::max(1, std::atoi(s));
  return 2; // a launcher we cannot read the size from: MPI will tell
}

MpiSession &MpiFamily::session(double arrival_timeout_s) {
  if (!session_)
    session_ = std::make_unique<MpiSession>(arrival_timeout_s);
  session_->throw_if_broken();
  return *session_;
}

} // namespace railgauge::collectives
