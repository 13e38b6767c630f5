# cmake -DIN=file.lua -DOUT=file.h -DNAME=symbol -P embed.cmake
#
# Writes the bytes of IN as `static const char NAME[]` (NUL-terminated)
# into OUT, so Lua source can be compiled into the binary.

file(READ "${IN}" hex HEX)
string(REGEX REPLACE "([0-9a-f][0-9a-f])" "0x\\1," bytes "${hex}")
string(REGEX REPLACE "(0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,)" "\\1\n" bytes "${bytes}")
get_filename_component(src "${IN}" NAME)
file(WRITE "${OUT}.tmp"
  "/* Generated from ${src} by embed.cmake; do not edit. */\n"
  "static const char ${NAME}[] = {\n${bytes}0x00\n};\n")
file(RENAME "${OUT}.tmp" "${OUT}")
