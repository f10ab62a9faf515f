#include "runner_shim.h"
