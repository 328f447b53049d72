// Atomic writes: a file or a set of files appears whole or not at all, and temporaries left by
// a killed writer can be cleared by the folder's owner.
#include "atomic-file.h"
#include "test-support.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>

using namespace flumen;
namespace fs = std::filesystem;

namespace
{

std::vector<std::string>
Entries(const std::string& dir)
{
    std::vector<std::string> names;
    for (const auto& e : fs::directory_iterator(dir))
    {
        names.push_back(e.path().filename().string());
    }
    std::sort(names.begin(), names.end());
    return names;
}

} // namespace

TEST(AtomicFile, UnwritableTargetThrowsNamingThePath)
{
    try
    {
        WriteFileAtomically("/proc/flumen-cannot-write/x", "y");
        FAIL() << "expected an error";
    }
    catch (const std::runtime_error& e)
    {
        EXPECT_NE(std::string(e.what()).find("/proc/flumen-cannot-write/x"), std::string::npos);
    }
}

TEST(AtomicFile, ANewFolderAppearsWholeWithNothingBesideIt)
{
    test::TempDir dir;
    WriteFileSetAtomically(dir.Path() + "/a/run/", { { "data.csv", "x\n1\n" }, { "marker", "m" } });
    EXPECT_EQ(Entries(dir.Path() + "/a"), std::vector<std::string>{ "run" });
    EXPECT_EQ(Entries(dir.Path() + "/a/run"), (std::vector<std::string>{ "data.csv", "marker" }));
    EXPECT_EQ(test::ReadFile(dir.Path() + "/a/run/data.csv"), "x\n1\n");
}

TEST(AtomicFile, AnExistingFolderKeepsItsOtherFilesAndGetsTheNewSet)
{
    test::TempDir dir;
    const std::string out = dir.Path() + "/out";
    fs::create_directories(out);
    dir.Write("out/notes.txt", "mine");
    WriteFileSetAtomically(out, { { "data.csv", "old" }, { "marker", "1" } });
    WriteFileSetAtomically(out, { { "data.csv", "new" }, { "marker", "2" } });
    EXPECT_EQ(Entries(out), (std::vector<std::string>{ "data.csv", "marker", "notes.txt" }));
    EXPECT_EQ(test::ReadFile(out + "/data.csv"), "new");
    EXPECT_EQ(test::ReadFile(out + "/marker"), "2");
}

TEST(AtomicFile, AFailedSetLeavesNoNewFolder)
{
    test::TempDir dir;
    // A name longer than any file system allows: the first file cannot be created.
    const std::string out = dir.Path() + "/out";
    EXPECT_THROW(WriteFileSetAtomically(out, { { std::string(300, 'x'), "a" }, { "m", "b" } }),
                 std::runtime_error);
    EXPECT_TRUE(Entries(dir.Path()).empty());
}

TEST(AtomicFile, StaleTemporariesAreRemovedAndNothingElse)
{
    test::TempDir dir;
    dir.Write("results.csv", "keep");
    dir.Write("results.csv.tmp.host-12", "stale");
    fs::create_directories(dir.Path() + "/plots.tmp.host-12/inner");
    fs::create_directories(dir.Path() + "/points");
    RemoveStaleTemporaries(dir.Path());
    EXPECT_EQ(Entries(dir.Path()), (std::vector<std::string>{ "points", "results.csv" }));
}
