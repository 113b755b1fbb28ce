# Makefile - builds the cuckoo PostgreSQL extension with PGXS.
# Extra warnings come from outside: make COPT="-Wall -Wextra -Werror".

EXTENSION = cuckoo
MODULE_big = cuckoo
# the plain-C core (src/core: no PostgreSQL header), then the PostgreSQL glue
CORE_OBJS = src/core/cuckoo_hash.o src/core/cuckoo_table.o src/core/cuckoo_format.o \
	src/core/cuckoo_ops.o src/core/cuckoo_lookup.o src/core/cuckoo_build.o src/core/cuckoo_sort.o
OBJS = $(CORE_OBJS) src/cuckoo_pg.o src/cuckoo_hashval.o src/cuckoo_expanded.o src/cuckoo_selfuncs.o src/cuckoo_agg.o src/cuckoo_batch.o src/cuckoo_values.o
DATA = cuckoo--1.0.sql cuckoo--1.0--1.1.sql
HEADERS_cuckoo = src/core/cuckoo.h

REGRESS = cuckoo_basic cuckoo_types cuckoo_input cuckoo_bulk cuckoo_plpgsql cuckoo_golden cuckoo_golden_v2 cuckoo_agg cuckoo_lifecycle cuckoo_planner cuckoo_encoding cuckoo_sets cuckoo_typed cuckoo_deletes cuckoo_cache cuckoo_inplace cuckoo_batch cuckoo_readme cuckoo_values
REGRESS_OPTS = --load-extension=cuckoo

PG_CPPFLAGS = -I$(srcdir)/src -I$(srcdir)/src/core


PG_CONFIG ?= pg_config
PGXS := $(shell $(PG_CONFIG) --pgxs)
include $(PGXS)

# PGXS does not track header dependencies: every object depends on the headers
$(OBJS): src/core/cuckoo.h src/core/cuckoo_internal.h src/cuckoo_pg.h

# soft input errors (pg_input_is_valid) exist from PostgreSQL 16 on
ifeq ($(shell test $(MAJORVERSION) -ge 16 && echo yes),yes)
REGRESS += cuckoo_soft_input
endif
