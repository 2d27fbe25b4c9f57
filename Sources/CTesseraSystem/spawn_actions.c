// posix_spawn's GNU extensions, which Swift's Glibc module does not show (they need
// _GNU_SOURCE).
#define _GNU_SOURCE
#include <spawn.h>
#include "CTesseraSystem.h"

int tessera_spawn_close_from(posix_spawn_file_actions_t *actions, int lowest) {
    return posix_spawn_file_actions_addclosefrom_np(actions, lowest);
}

int tessera_spawn_change_directory(posix_spawn_file_actions_t *actions, const char *path) {
    return posix_spawn_file_actions_addchdir_np(actions, path);
}
