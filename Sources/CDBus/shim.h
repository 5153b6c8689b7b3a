// The reference D-Bus client library, libdbus-1 (Debian's libdbus-1-dev), for the GeoClue source.
#include <dbus/dbus.h>
