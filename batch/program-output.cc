#include "program-output.h"

#include <cerrno>
#include <cstring>
#include <poll.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

extern char** environ;

namespace flumen
{

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
    std::vector<std::string> args = argv;
    std::vector<char*> cargs;
    for (auto& a : args)
    {
        cargs.push_back(a.data());
    }
    cargs.push_back(nullptr);
    pid_t pid = 0;
    int rc = posix_spawnp(&pid, args[0].c_str(), &fa, nullptr, cargs.data(), environ);
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
    pollfd fds[2] = { { outPipe[0], POLLIN, 0 }, { errPipe[0], POLLIN, 0 } };
    std::string* sinks[2] = { &r.out, &r.err };
    int open = 2;
    char buf[4096];
    while (open > 0)
    {
        if (::poll(fds, 2, -1) < 0)
        {
            if (errno == EINTR)
                continue;
            break;
        }
        for (int i = 0; i < 2; ++i)
        {
            if (fds[i].fd >= 0 && (fds[i].revents & (POLLIN | POLLHUP | POLLERR)))
            {
                ssize_t n = ::read(fds[i].fd, buf, sizeof buf);
                if (n > 0)
                {
                    sinks[i]->append(buf, static_cast<size_t>(n));
                }
                else if (n == 0 || errno != EINTR)
                {
                    ::close(fds[i].fd);
                    fds[i].fd = -1; // poll ignores negative descriptors
                    --open;
                }
            }
        }
    }
    for (auto& f : fds)
    {
        if (f.fd >= 0)
            ::close(f.fd);
    }
    int status = 0;
    while (::waitpid(pid, &status, 0) < 0 && errno == EINTR)
    {
    }
    r.exitCode = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    return r;
}

} // namespace flumen
