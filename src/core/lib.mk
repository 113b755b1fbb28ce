# src/core/lib.mk - the core as a library: libcuckoo.a, libcuckoo.so and
# cuckoo.pc from src/core, for programs outside PostgreSQL.  On its own,
# without PostgreSQL:
#
#   make -f src/core/lib.mk lib       build/lib/libcuckoo.{a,so}, cuckoo.pc
#   make -f src/core/lib.mk install-lib PREFIX=/usr/local
#                                     installs them and cuckoo.h (the public
#                                     API: opaque filters and their operations)
#   make -f src/core/lib.mk check-lib builds and runs test/lib/open_bytes.c
#                                     against the static and the shared library,
#                                     and checks the shared library exports
#                                     exactly the functions cuckoo.h declares
#
# The top Makefile includes it as make lib, make check-lib and
# make install-libcuckoo PREFIX=... (clean-libcuckoo): install-lib and
# clean-lib are PGXS's own targets (make install runs install-lib), so there
# the names are CF_LIB_INSTALL and CF_LIB_CLEAN.
#
# The objects are built apart from PGXS's (build/lib/obj); the shared
# library exports what cuckoo.h declares (a version script made from it:
# everything else is local), nothing of the core's internals.

CF_LIB_TOP   ?= $(patsubst %/src/core/,%,$(dir $(abspath $(lastword $(MAKEFILE_LIST)))))
CF_LIB_DIR   ?= $(CF_LIB_TOP)/build/lib
CF_LIB_SRCS   = $(sort $(wildcard $(CF_LIB_TOP)/src/core/*.c))
CF_LIB_OBJS   = $(patsubst $(CF_LIB_TOP)/src/core/%.c,$(CF_LIB_DIR)/obj/%.o,$(CF_LIB_SRCS))
CF_LIB_HDRS   = $(wildcard $(CF_LIB_TOP)/src/core/*.h)
CF_LIB_CC    ?= cc
CF_LIB_CFLAGS ?= -O2 -g -std=c99 -Wall -Wextra -Werror
CF_LIB_VERSION = $(shell sed -n 's/.*"version": *"\([0-9.]*\)".*/\1/p' $(CF_LIB_TOP)/META.json | head -1)
PREFIX       ?= /usr/local
CF_LIB_LIBDIR ?= $(PREFIX)/lib
CF_LIB_INCDIR ?= $(PREFIX)/include

CF_LIB_INSTALL ?= install-lib
CF_LIB_CLEAN  ?= clean-lib

.PHONY: lib $(CF_LIB_INSTALL) check-lib $(CF_LIB_CLEAN)

lib: $(CF_LIB_DIR)/libcuckoo.a $(CF_LIB_DIR)/libcuckoo.so $(CF_LIB_DIR)/cuckoo.pc

$(CF_LIB_DIR)/obj/%.o: $(CF_LIB_TOP)/src/core/%.c $(CF_LIB_HDRS)
	@mkdir -p $(dir $@)
	$(CF_LIB_CC) $(CF_LIB_CFLAGS) -fPIC -c -o $@ $<

$(CF_LIB_DIR)/libcuckoo.a: $(CF_LIB_OBJS)
	rm -f $@
	ar rcs $@ $^

# the exported names: every function and variable cuckoo.h declares
$(CF_LIB_DIR)/libcuckoo.map: $(CF_LIB_TOP)/src/core/cuckoo.h
	@mkdir -p $(dir $@)
	{ echo '{ global:'; \
	  sed -n -e 's/^extern[^(]*(\*\(cf_[a-z0-9_]*\)).*/\1;/p' \
		-e '/^static/d' -e 's/^[a-z_][a-z0-9_ \t]*[ \t*]\(cf_[a-z0-9_]*\)(.*/\1;/p' $< ; \
	  echo 'local: *; };'; } > $@

$(CF_LIB_DIR)/libcuckoo.so: $(CF_LIB_OBJS) $(CF_LIB_DIR)/libcuckoo.map
	$(CF_LIB_CC) -shared -Wl,-soname,libcuckoo.so.2 -Wl,--version-script=$(CF_LIB_DIR)/libcuckoo.map \
		-o $@.2 $(CF_LIB_OBJS) -lm
	ln -sf libcuckoo.so.2 $@

# the pkg-config file for PREFIX (written again by install-lib, for its PREFIX)
CF_LIB_PC = printf '%s\n' 'prefix=$(PREFIX)' 'libdir=$(CF_LIB_LIBDIR)' 'includedir=$(CF_LIB_INCDIR)' '' \
	'Name: cuckoo' 'Description: cuckoo filters in the byte format of the cuckoo PostgreSQL extension' \
	'Version: $(CF_LIB_VERSION)' 'Libs: -L$${libdir} -lcuckoo' 'Libs.private: -lm' \
	'Cflags: -I$${includedir}'

$(CF_LIB_DIR)/cuckoo.pc: $(CF_LIB_TOP)/src/core/lib.mk $(CF_LIB_TOP)/META.json
	@mkdir -p $(dir $@)
	$(CF_LIB_PC) > $@

$(CF_LIB_INSTALL): lib
	install -d $(DESTDIR)$(CF_LIB_LIBDIR)/pkgconfig $(DESTDIR)$(CF_LIB_INCDIR)
	install -m 644 $(CF_LIB_DIR)/libcuckoo.a $(DESTDIR)$(CF_LIB_LIBDIR)/libcuckoo.a
	install -m 755 $(CF_LIB_DIR)/libcuckoo.so.2 $(DESTDIR)$(CF_LIB_LIBDIR)/libcuckoo.so.2
	ln -sf libcuckoo.so.2 $(DESTDIR)$(CF_LIB_LIBDIR)/libcuckoo.so
	$(CF_LIB_PC) > $(DESTDIR)$(CF_LIB_LIBDIR)/pkgconfig/cuckoo.pc
	install -m 644 $(CF_LIB_TOP)/src/core/cuckoo.h $(DESTDIR)$(CF_LIB_INCDIR)/cuckoo.h

check-lib: lib
	bash $(CF_LIB_TOP)/test/lib/run.sh $(CF_LIB_DIR)

$(CF_LIB_CLEAN):
	rm -rf $(CF_LIB_DIR)
