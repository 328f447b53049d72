// Child processes, one way for the whole tree: a program started with its arguments (no shell:
// paths with spaces or quotes need no escaping), its output into a file or captured; a C++
// function run in a forked child, its answer back through a pipe (a simulation owns ns-3's
// global simulator, so parallel or isolated runs need processes); waiting for whichever child
// ends first; a list of functions run N at a time. Every wait, read and write retries on EINTR;
// a child that cannot start or dies by a signal is reported as such, never waited for forever.
#ifndef FLUMEN_CHILD_PROCESS_H
#define FLUMEN_CHILD_PROCESS_H

#include <nlohmann/json.hpp>

#include <sys/types.h>

#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace flumen
{

/** How a child process ended. */
struct ChildExit
{
    bool started = false; //!< false: it could not be started (`error` says why)
    int exitCode = -1;    //!< -1 when it was killed by a signal or never started
    int signal = 0;       //!< the signal that killed it, 0 when it exited
    std::string error;    //!< why it could not be started

    bool Succeeded() const { return started && exitCode == 0; }
    /** "exit code 3", "killed by signal 9", or why it could not be started. */
    std::string Describe() const;
};

struct SpawnOptions
{
    bool searchPath = false; //!< look argv[0] up in PATH instead of taking it as a path
    std::string outputFile;  //!< stdout and stderr both into this file (truncated); "": inherited
    std::string workingDirectory; //!< where it runs ("": here); outputFile is relative to it
    /**
     * It is killed when this process dies (Linux's parent-death signal), so that a killed
     * command leaves no child writing into a folder the next command takes over.
     */
    bool dieWithParent = false;
};

/**
 * Starts argv[0] with these arguments and returns its pid without waiting for it. Throws
 * std::runtime_error ("cannot start PROGRAM: why") when it cannot be started.
 */
pid_t StartProgram(const std::vector<std::string>& argv, const SpawnOptions& options = {});

/** A child that ended, with its peak resident set. */
struct EndedChild
{
    pid_t pid = -1;
    ChildExit exit;
    double peakRssMb = 0;
};

/** Waits for the child `pid` to end. */
EndedChild WaitForChild(pid_t pid);
/** Waits for whichever child of this process ends first; nullopt when there is none left. */
std::optional<EndedChild> WaitForAnyChild();

struct ProgramOutput
{
    bool started = false; //!< false when the program could not be started (e.g. not in PATH)
    int exitCode = -1;    //!< -1 when it was killed by a signal
    std::string out;      //!< standard output
    std::string err;      //!< standard error (or why it could not be started)
};

/** Runs argv[0] (searched in PATH) with these arguments to its end, capturing its output. */
ProgramOutput RunProgram(const std::vector<std::string>& argv);

/** A function to run in a child process; what it returns is sent back to the parent. */
using ChildTask = std::function<std::string()>;

/** What a function run in a child process gave back. */
struct ChildResult
{
    ChildExit exit;
    std::string text; //!< what it returned (exit 0), or what it threw (exit 1); "" if it died
    double peakRssMb = 0;
};

/**
 * Runs each task in a forked child, at most `jobs` at a time, and returns the results in task
 * order. Children end in any order; whichever ends first frees its slot for the next task.
 */
std::vector<ChildResult> RunInChildren(const std::vector<ChildTask>& tasks, unsigned jobs);

/** One task in a forked child (its own peak memory, a fresh ns-3 state). */
ChildResult RunInChild(const ChildTask& task);

/** A task sending JSON back: an exception it throws becomes {"error": its message}. */
ChildTask JsonTask(std::function<nlohmann::json()> task);

/**
 * The JSON a JsonTask sent back; {"error": ...} when it sent nothing (`diedMessage`, or why
 * it could not start) or something unreadable.
 */
nlohmann::json JsonAnswer(const ChildResult& result, const std::string& diedMessage);

} // namespace flumen

#endif
