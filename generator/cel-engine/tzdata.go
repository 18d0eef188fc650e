package main

// The IANA time zone database, embedded: in WebAssembly the engine has no file system to load
// /usr/share/zoneinfo from, so without it every time zone argument (timestamp.getHours('Europe/Paris'))
// failed with "not implemented on js" where the API server, reading its host's zoneinfo, answers.
import _ "time/tzdata"
