#ifndef RUNNER_SHIM_H
#define RUNNER_SHIM_H
#endif
