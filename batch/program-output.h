// Running an external program (sbatch, squeue, scontrol) and capturing what it prints, without
// a shell: arguments are passed as they are, so paths with spaces or quotes need no escaping.
#ifndef FLUMEN_PROGRAM_OUTPUT_H
#define FLUMEN_PROGRAM_OUTPUT_H

#include <string>
#include <vector>

namespace flumen
{

struct ProgramOutput
{
    bool started = false; //!< false when the program could not be started (e.g. not in PATH)
    int exitCode = -1;    //!< -1 when it was killed by a signal
    std::string out;      //!< standard output
    std::string err;      //!< standard error (or why it could not be started)
};

/** Runs argv[0] (searched in PATH) with these arguments and waits for it. */
ProgramOutput RunProgram(const std::vector<std::string>& argv);

} // namespace flumen

#endif
