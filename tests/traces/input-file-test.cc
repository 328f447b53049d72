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
    EXPECT_EQ(InputFileProblem(dir.Write("a.json", "{}")), "");
    EXPECT_EQ(InputFileProblem(dir.Write("empty.json", "")), "");
}

TEST(InputFile, AMissingFileAFolderAndAnUnreadableFileAreToldApart)
{
    test::TempDir dir;
    EXPECT_EQ(InputFileProblem(dir.Path() + "/nowhere.json"), "no such file");
    EXPECT_EQ(InputFileProblem(dir.Path()), "is a folder, not a file");
    EXPECT_EQ(ReadTextFile(dir.Path()), ""); // the stream is never given the folder
    if (::geteuid() != 0)                    // root reads whatever the mode says
    {
        const std::string locked = dir.Write("locked.json", "{}");
        std::filesystem::permissions(locked, std::filesystem::perms::none);
        EXPECT_EQ(InputFileProblem(locked), "cannot be read (Permission denied)");
    }
}
