/* Network paths by their spelling (netpath.h). */
#include "base/netpath.h"

#include <stddef.h>

static bool sep(char c)
{
    return c == '\\' || c == '/';
}

bool netpath_has_drive(const char *p)
{
    return p && ((p[0] >= 'A' && p[0] <= 'Z') || (p[0] >= 'a' && p[0] <= 'z')) && p[1] == ':';
}

/* Whether a part of the path (between separators) is "." or "..". */
static bool climbs(const char *p)
{
    for (const char *part = p; *part;) {
        size_t n = 0;
        while (part[n] && !sep(part[n]))
            n++;
        if ((n == 1 && part[0] == '.') || (n == 2 && part[0] == '.' && part[1] == '.'))
            return true;
        part += n;
        while (sep(*part))
            part++;
    }
    return false;
}

const char *netpath_remote(const char *p)
{
    if (!p)
        return NULL;
    /* "\??\UNC\host\share": an NT path, which Win32 passes through as it is */
    if (sep(p[0]) && p[1] == '?' && p[2] == '?' && sep(p[3]))
        return "an NT object path (\\??\\), which reaches any device, the network's too";
    if (!(sep(p[0]) && sep(p[1])))
        return NULL;
    /* "\\?\C:\x", "\\.\C:\x": a drive, spelled as a device */
    if ((p[2] == '?' || p[2] == '.') && sep(p[3])) {
        const char *rest = p + 4;
        if (!netpath_has_drive(rest) || !sep(rest[2]))
            return "a device path other than a drive's (UNC, GLOBALROOT, a volume, a pipe, "
                   "a device): it may reach the network";
        if (climbs(rest + 3))
            return "a device path with a \".\" or \"..\" part, which can climb out of its "
                   "drive to the network";
        return NULL;
    }
    return "a network path (two separators at its start: a UNC path)";
}
