// One command per output folder: a second sweep or validate on a folder in use refuses,
// naming the holder, and runs nothing; the lock goes with its process, also on kill -9.
#include "folder-lock.h"
#include "test-support.h"

#include <gtest/gtest.h>

#include <csignal>
#include <filesystem>
#include <sys/wait.h>
#include <unistd.h>

using namespace flumen;
namespace fs = std::filesystem;

TEST(FolderLock, SecondHolderIsRefusedWithTheFirstsName)
{
    test::TempDir dir;
    const std::string out = dir.Path() + "/out";
    {
        FolderLock first(out, "flumen sweep a.json");
        try
        {
            FolderLock second(out, "flumen sweep b.json");
            FAIL() << "two locks on one folder";
        }
        catch (const FolderLockedError& e)
        {
            const std::string what = e.what();
            EXPECT_NE(what.find("flumen sweep a.json, pid " + std::to_string(::getpid())),
                      std::string::npos)
                << what;
        }
    }
    FolderLock again(out, "flumen validate"); // released with its holder
}

TEST(FolderLock, GoesWithAProcessKilledNine)
{
    test::TempDir dir;
    const std::string out = dir.Path() + "/out";
    int ready[2];
    ASSERT_EQ(::pipe(ready), 0);
    pid_t pid = ::fork();
    if (pid == 0)
    {
        FolderLock held(out, "child");
        char c = 1;
        [[maybe_unused]] auto n = ::write(ready[1], &c, 1);
        ::pause();
        ::_exit(0);
    }
    char c = 0;
    ASSERT_EQ(::read(ready[0], &c, 1), 1);
    EXPECT_THROW(FolderLock(out, "parent"), FolderLockedError);
    ::kill(pid, SIGKILL);
    int status = 0;
    ::waitpid(pid, &status, 0);
    EXPECT_NO_THROW(FolderLock(out, "parent"));
    ::close(ready[0]);
    ::close(ready[1]);
}

TEST(FolderLock, SweepAndValidateRefuseAFolderInUseAndRunNothing)
{
    test::TempDir dir;
    const std::string out = dir.Path() + "/out";
    FolderLock held(out, "another flumen sweep");
    auto sweep = test::RunSweep(std::string(FLUMEN_SOURCE_DIR) + "/scenarios/sweep-example.json"
                                + " --out " + out);
    EXPECT_EQ(sweep.exitCode, 1) << sweep.output;
    EXPECT_NE(sweep.output.find("in use by another command (another flumen sweep, pid "
                                + std::to_string(::getpid())),
              std::string::npos)
        << sweep.output;
    EXPECT_FALSE(fs::exists(out + "/points"));
    if (!fs::exists(test::kTestbed))
    {
        GTEST_SKIP() << "validate's half needs the testbed data at " << test::kTestbed;
    }
    auto validate = test::RunValidate(std::string(FLUMEN_SOURCE_DIR)
                                      + "/validation/manifests/iperf-rdma-configA.json --quick"
                                      + " --out " + out);
    EXPECT_EQ(validate.exitCode, 1) << validate.output;
    EXPECT_NE(validate.output.find("in use by another command"), std::string::npos)
        << validate.output;
    EXPECT_FALSE(fs::exists(out + "/points"));
}
