#include "child-process.h"

#include <fmt/format.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <iostream>
#include <poll.h>
#include <spawn.h>
#include <stdexcept>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

extern char** environ;

namespace flumen
{

using nlohmann::json;

namespace
{

ChildExit
ExitOf(int status)
{
    ChildExit e;
    e.started = true;
    if (WIFEXITED(status))
    {
        e.exitCode = WEXITSTATUS(status);
    }
    else if (WIFSIGNALED(status))
    {
        e.signal = WTERMSIG(status);
    }
    return e;
}

EndedChild
Ended(pid_t pid, int status, const rusage& usage)
{
    return { pid, ExitOf(status), usage.ru_maxrss / 1024.0 }; // Linux reports KiB
}

// posix_spawn (or posix_spawnp, searching PATH) of argv; 0 or the error number.
int
Spawn(const std::vector<std::string>& argv, bool searchPath, const posix_spawn_file_actions_t& fa,
      pid_t& pid)
{
    if (argv.empty())
    {
        return EINVAL;
    }
    std::vector<std::string> args = argv;
    std::vector<char*> cargs;
    for (auto& a : args)
    {
        cargs.push_back(a.data());
    }
    cargs.push_back(nullptr);
    return searchPath ? posix_spawnp(&pid, args[0].c_str(), &fa, nullptr, cargs.data(), environ)
                      : posix_spawn(&pid, args[0].c_str(), &fa, nullptr, cargs.data(), environ);
}

// In a forked child: SIGKILL when the parent dies (`parent`: its pid before the fork; if it
// already died, now).
void
DieWithParent(pid_t parent)
{
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (::getppid() != parent)
    {
        ::_exit(127);
    }
}

// StartProgram's way for options posix_spawn has not: fork, then in the child the parent-death
// signal, the folder, the output, exec. An exec that fails sends its errno through a pipe that
// closes on exec, so the parent knows whether the program started.
int
SpawnForked(const std::vector<std::string>& argv, const SpawnOptions& options, pid_t& pid)
{
    if (argv.empty())
    {
        return EINVAL;
    }
    int report[2];
    if (::pipe2(report, O_CLOEXEC) != 0)
    {
        return errno;
    }
    std::vector<std::string> args = argv;
    std::vector<char*> cargs;
    for (auto& a : args)
    {
        cargs.push_back(a.data());
    }
    cargs.push_back(nullptr);
    const pid_t parent = ::getpid();
    std::cout.flush();
    std::cerr.flush();
    std::fflush(nullptr);
    pid = ::fork();
    if (pid < 0)
    {
        const int err = errno;
        ::close(report[0]);
        ::close(report[1]);
        return err;
    }
    if (pid == 0)
    {
        ::close(report[0]);
        if (options.dieWithParent)
        {
            DieWithParent(parent);
        }
        int err = 0;
        if (!options.workingDirectory.empty() && ::chdir(options.workingDirectory.c_str()) != 0)
        {
            err = errno;
        }
        if (err == 0 && !options.outputFile.empty())
        {
            const int fd = ::open(options.outputFile.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
            if (fd < 0 || ::dup2(fd, 1) < 0 || ::dup2(fd, 2) < 0)
            {
                err = errno;
            }
        }
        if (err == 0)
        {
            options.searchPath ? ::execvp(cargs[0], cargs.data()) : ::execv(cargs[0], cargs.data());
            err = errno;
        }
        [[maybe_unused]] auto n = ::write(report[1], &err, sizeof err);
        ::_exit(127);
    }
    ::close(report[1]);
    int err = 0;
    ssize_t n;
    while ((n = ::read(report[0], &err, sizeof err)) < 0 && errno == EINTR)
    {
    }
    ::close(report[0]);
    if (n == sizeof err)
    {
        int status = 0;
        while (::waitpid(pid, &status, 0) < 0 && errno == EINTR)
        {
        }
        return err;
    }
    return 0;
}

// Reads what is ready on the open descriptors (fd >= 0) into their sinks, waiting until one
// is; a descriptor at its end (or in error) is closed and set to -1 (poll ignores those).
void
ReadReady(std::vector<pollfd>& fds, const std::vector<std::string*>& sinks)
{
    for (auto& f : fds)
    {
        f.events = POLLIN;
        f.revents = 0;
    }
    if (::poll(fds.data(), fds.size(), -1) < 0)
    {
        if (errno == EINTR)
        {
            return;
        }
        // Nothing more can be read: give up the pipes (a child still writing gets EPIPE and
        // ends), so that the caller goes on to reap the children instead of hanging.
        for (auto& f : fds)
        {
            if (f.fd >= 0)
            {
                ::close(f.fd);
                f.fd = -1;
            }
        }
        return;
    }
    char buf[4096];
    for (size_t i = 0; i < fds.size(); ++i)
    {
        if (fds[i].fd < 0 || !(fds[i].revents & (POLLIN | POLLHUP | POLLERR | POLLNVAL)))
        {
            continue;
        }
        ssize_t n = ::read(fds[i].fd, buf, sizeof buf);
        if (n > 0)
        {
            sinks[i]->append(buf, static_cast<size_t>(n));
        }
        else if (n == 0 || errno != EINTR)
        {
            ::close(fds[i].fd);
            fds[i].fd = -1;
        }
    }
}

bool
AnyOpen(const std::vector<pollfd>& fds)
{
    for (const auto& f : fds)
    {
        if (f.fd >= 0)
        {
            return true;
        }
    }
    return false;
}

void
WriteAll(int fd, const std::string& text)
{
    size_t off = 0;
    while (off < text.size())
    {
        ssize_t n = ::write(fd, text.data() + off, text.size() - off);
        if (n < 0 && errno == EINTR)
        {
            continue;
        }
        if (n <= 0)
        {
            break;
        }
        off += static_cast<size_t>(n);
    }
}

// Forks a child that runs the task, writes its answer into a pipe and exits without running
// the parent's exit handlers; returns the pid and the pipe's read end (pid -1 if fork failed).
std::pair<pid_t, int>
ForkTask(const ChildTask& task, std::string& error)
{
    int fd[2];
    if (::pipe(fd) != 0)
    {
        error = std::string("cannot create a pipe: ") + std::strerror(errno);
        return { -1, -1 };
    }
    // What the parent has buffered must not be written twice.
    std::cout.flush();
    std::cerr.flush();
    std::fflush(nullptr);
    const pid_t parent = ::getpid();
    pid_t pid = ::fork();
    if (pid < 0)
    {
        error = std::string("cannot fork: ") + std::strerror(errno);
        ::close(fd[0]);
        ::close(fd[1]);
        return { -1, -1 };
    }
    if (pid == 0)
    {
        // A task's simulation writes into its parent's folders: it ends with its parent.
        DieWithParent(parent);
        ::close(fd[0]);
        std::string text;
        int code = 0;
        try
        {
            text = task();
        }
        catch (const std::exception& e)
        {
            text = e.what();
            code = 1;
        }
        catch (...)
        {
            code = 1;
        }
        WriteAll(fd[1], text);
        ::close(fd[1]);
        ::_exit(code);
    }
    ::close(fd[1]);
    return { pid, fd[0] };
}

} // namespace

std::string
ChildExit::Describe() const
{
    if (!started)
    {
        return error;
    }
    return signal ? fmt::format("killed by signal {}", signal)
                  : fmt::format("exit code {}", exitCode);
}

pid_t
StartProgram(const std::vector<std::string>& argv, const SpawnOptions& options)
{
    if (options.dieWithParent || !options.workingDirectory.empty())
    {
        pid_t pid = 0;
        if (int rc = SpawnForked(argv, options, pid); rc != 0)
        {
            throw std::runtime_error("cannot start "
                                     + (argv.empty() ? "a program without a name" : argv[0]) + ": "
                                     + std::strerror(rc));
        }
        return pid;
    }
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    if (!options.outputFile.empty())
    {
        posix_spawn_file_actions_addopen(&fa, 1, options.outputFile.c_str(),
                                         O_WRONLY | O_CREAT | O_TRUNC, 0644);
        posix_spawn_file_actions_adddup2(&fa, 1, 2);
    }
    pid_t pid = 0;
    int rc = Spawn(argv, options.searchPath, fa, pid);
    posix_spawn_file_actions_destroy(&fa);
    if (rc != 0)
    {
        throw std::runtime_error("cannot start "
                                 + (argv.empty() ? "a program without a name" : argv[0]) + ": "
                                 + std::strerror(rc));
    }
    return pid;
}

EndedChild
WaitForChild(pid_t pid)
{
    int status = 0;
    rusage usage{};
    while (::wait4(pid, &status, 0, &usage) < 0)
    {
        if (errno != EINTR)
        {
            EndedChild lost;
            lost.pid = pid;
            lost.exit.error = std::string("cannot wait for the child: ") + std::strerror(errno);
            return lost;
        }
    }
    return Ended(pid, status, usage);
}

std::optional<EndedChild>
WaitForAnyChild()
{
    int status = 0;
    rusage usage{};
    pid_t pid;
    while ((pid = ::wait4(-1, &status, 0, &usage)) < 0)
    {
        if (errno != EINTR)
        {
            return std::nullopt; // ECHILD: none left
        }
    }
    return Ended(pid, status, usage);
}

ProgramOutput
RunProgram(const std::vector<std::string>& argv)
{
    ProgramOutput r;
    int outPipe[2];
    int errPipe[2];
    if (argv.empty() || ::pipe(outPipe) != 0)
    {
        r.err = "cannot create a pipe";
        return r;
    }
    if (::pipe(errPipe) != 0)
    {
        ::close(outPipe[0]);
        ::close(outPipe[1]);
        r.err = "cannot create a pipe";
        return r;
    }
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_adddup2(&fa, outPipe[1], 1);
    posix_spawn_file_actions_adddup2(&fa, errPipe[1], 2);
    posix_spawn_file_actions_addclose(&fa, outPipe[0]);
    posix_spawn_file_actions_addclose(&fa, errPipe[0]);
    pid_t pid = 0;
    int rc = Spawn(argv, true, fa, pid);
    posix_spawn_file_actions_destroy(&fa);
    ::close(outPipe[1]);
    ::close(errPipe[1]);
    if (rc != 0)
    {
        ::close(outPipe[0]);
        ::close(errPipe[0]);
        r.err = argv[0] + ": " + std::strerror(rc);
        return r;
    }
    r.started = true;
    // Both pipes at once, so that a program filling one while we block on the other never hangs.
    std::vector<pollfd> fds = { { outPipe[0], POLLIN, 0 }, { errPipe[0], POLLIN, 0 } };
    while (AnyOpen(fds))
    {
        ReadReady(fds, { &r.out, &r.err });
    }
    r.exitCode = WaitForChild(pid).exit.exitCode;
    return r;
}

std::vector<ChildResult>
RunInChildren(const std::vector<ChildTask>& tasks, unsigned jobs)
{
    std::vector<ChildResult> results(tasks.size());
    struct Running
    {
        pid_t pid;
        size_t task;
    };
    std::vector<Running> running;
    std::vector<pollfd> fds; // one per running child, in the same order
    size_t next = 0;
    while (next < tasks.size() || !running.empty())
    {
        while (next < tasks.size() && running.size() < std::max(1u, jobs))
        {
            std::string error;
            auto [pid, fd] = ForkTask(tasks[next], error);
            if (pid < 0)
            {
                results[next++].exit.error = error;
                continue;
            }
            running.push_back({ pid, next++ });
            fds.push_back({ fd, POLLIN, 0 });
        }
        if (running.empty())
        {
            continue;
        }
        // A child's answer is read as it comes, so that a long one never blocks it on a full
        // pipe; the pipe's end means the child is done (or dead): it is reaped at once, and
        // whichever ends first frees its slot.
        std::vector<std::string*> sinks;
        for (const auto& r : running)
        {
            sinks.push_back(&results[r.task].text);
        }
        ReadReady(fds, sinks);
        for (size_t i = 0; i < running.size();)
        {
            if (fds[i].fd >= 0)
            {
                ++i;
                continue;
            }
            EndedChild ended = WaitForChild(running[i].pid);
            ChildResult& r = results[running[i].task];
            r.exit = ended.exit;
            r.peakRssMb = ended.peakRssMb;
            running.erase(running.begin() + i);
            fds.erase(fds.begin() + i);
        }
    }
    return results;
}

ChildResult
RunInChild(const ChildTask& task)
{
    return RunInChildren({ task }, 1).front();
}

ChildTask
JsonTask(std::function<json()> task)
{
    return [task = std::move(task)]
    {
        try
        {
            return task().dump();
        }
        catch (const std::exception& e)
        {
            return json{ { "error", e.what() } }.dump();
        }
    };
}

json
JsonAnswer(const ChildResult& result, const std::string& diedMessage)
{
    if (result.text.empty())
    {
        return { { "error", result.exit.started ? diedMessage : result.exit.Describe() } };
    }
    try
    {
        return json::parse(result.text);
    }
    catch (const std::exception&)
    {
        return { { "error", fmt::format("{} ({}; it sent back an unreadable answer)", diedMessage,
                                        result.exit.Describe()) } };
    }
}

} // namespace flumen
