// Input paths: what keeps a path from being read is said in words, before a stream reads it.
#include "atomic-file.h"
#include "input-file.h"
#include "test-support.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <unistd.h>

using namespace flumen;

TEST(InputFile, AReadableFileHasNoProblem)
{
    test::TempDir dir;
    EXPECT_EQ(ReadInputFile(dir.Write("a.json", "{}")).problem, "");
    EXPECT_EQ(ReadInputFile(dir.Write("empty.json", "")).problem, "");
}

TEST(InputFile, AMissingFileAFolderAndAnUnreadableFileAreToldApart)
{
    test::TempDir dir;
    EXPECT_EQ(ReadInputFile(dir.Path() + "/nowhere.json").problem, "no such file");
    EXPECT_EQ(ReadInputFile(dir.Path()).problem, "is a folder, not a file");
    EXPECT_EQ(ReadTextFile(dir.Path()), ""); // the stream is never given the folder
    if (::geteuid() != 0)                    // root reads whatever the mode says
    {
        const std::string locked = dir.Write("locked.json", "{}");
        std::filesystem::permissions(locked, std::filesystem::perms::none);
        EXPECT_EQ(ReadInputFile(locked).problem, "cannot be read (Permission denied)");
    }
}
