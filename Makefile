# Makefile - builds the cuckoo PostgreSQL extension with PGXS.
# Extra warnings come from outside: make COPT="-Wall -Wextra -Werror".

EXTENSION = cuckoo
MODULE_big = cuckoo
# the plain-C core (src/core: no PostgreSQL header), floor by floor: each core
# object calls only the ones listed before it (test/layering.py checks, with
# nm); then the PostgreSQL glue (src/pg), which calls the core
CORE_OBJS = src/core/cuckoo_util.o src/core/cuckoo_check.o src/core/cuckoo_base64.o src/core/cuckoo_rice.o src/core/cuckoo_semisort.o src/core/cuckoo_codec.o src/core/cuckoo_hash.o src/core/cuckoo_canon.o src/core/cuckoo_table.o \
	src/core/cuckoo_lookup.o src/core/cuckoo_format.o src/core/cuckoo_build.o src/core/cuckoo_geom.o \
	src/core/cuckoo_geom_chain.o src/core/cuckoo_split.o src/core/cuckoo_split_lookup.o src/core/cuckoo_geom_split.o src/core/cuckoo_geom_list.o src/core/cuckoo_geometries.o src/core/cuckoo_ops.o \
	src/core/cuckoo_sort.o src/core/cuckoo_handle.o src/core/cuckoo_verify.o
# the glue, room by room (each room includes only its own headers and those of
# the rooms before it: test/layering.py checks): the stored filter, value
# hashing, the type and its functions, aggregates, the seen recipes, the join
# filters, and what loading cuckoo.so sets up
PG_STORE_OBJS = src/pg/store/cuckoo_datum.o src/pg/store/cuckoo_expanded.o
PG_VALUES_OBJS = src/pg/values/cuckoo_hashval.o src/pg/values/cuckoo_hashval_hash.o src/pg/values/cuckoo_hashval_alt.o
PG_FUNCS_OBJS = src/pg/funcs/cuckoo_args.o src/pg/funcs/cuckoo_type.o src/pg/funcs/cuckoo_funcs.o src/pg/funcs/cuckoo_batch.o \
	src/pg/funcs/cuckoo_operators.o src/pg/funcs/cuckoo_selfuncs.o
PG_AGG_OBJS = src/pg/agg/cuckoo_agghashes.o src/pg/agg/cuckoo_agg.o src/pg/agg/cuckoo_unionagg.o src/pg/agg/cuckoo_aggstate.o
PG_SEEN_OBJS = src/pg/seen/cuckoo_seen.o src/pg/seen/cuckoo_seen3.o
PG_PREFILTER_OBJS = src/pg/prefilter/cuckoo_prefilter_find.o src/pg/prefilter/cuckoo_prefilter_any.o src/pg/prefilter/cuckoo_prefilter_range.o \
	src/pg/prefilter/cuckoo_prefilter_decide.o src/pg/prefilter/cuckoo_prefilter_estimate.o src/pg/prefilter/cuckoo_prefilter_build.o \
	src/pg/prefilter/cuckoo_prefilter_splice.o src/pg/prefilter/cuckoo_prefilter.o src/pg/prefilter/cuckoo_prefilter_citus.o \
	src/pg/prefilter/cuckoo_rtf_plan.o src/pg/prefilter/cuckoo_rtf_exec.o
PG_OBJS = $(PG_STORE_OBJS) $(PG_VALUES_OBJS) $(PG_FUNCS_OBJS) $(PG_AGG_OBJS) $(PG_SEEN_OBJS) $(PG_PREFILTER_OBJS) src/pg/cuckoo_module.o
OBJS = $(CORE_OBJS) $(PG_OBJS)
DATA = cuckoo--1.0.sql cuckoo--1.0--1.1.sql cuckoo--1.1--1.2.sql cuckoo--1.2--1.3.sql cuckoo--1.3--1.4.sql cuckoo--1.4--1.5.sql
HEADERS_cuckoo = src/core/cuckoo.h

REGRESS = cuckoo_basic cuckoo_types cuckoo_input cuckoo_bulk cuckoo_plpgsql cuckoo_golden cuckoo_golden_v2 cuckoo_agg cuckoo_lifecycle cuckoo_planner cuckoo_encoding cuckoo_sets cuckoo_typed cuckoo_deletes cuckoo_cache cuckoo_inplace cuckoo_batch cuckoo_readme cuckoo_values cuckoo_aggstate cuckoo_status cuckoo_equality cuckoo_aggstate_types cuckoo_semisort cuckoo_golden_semisort cuckoo_golden_split cuckoo_answers cuckoo_unions cuckoo_seen cuckoo_seen3 cuckoo_equality_audit cuckoo_equality_cross cuckoo_prefilter cuckoo_prefilter_query cuckoo_rtf cuckoo_rtf_edge cuckoo_verify cuckoo_golden_v3

REGRESS_OPTS = --load-extension=cuckoo

PG_CPPFLAGS = -I$(srcdir)/src/pg/store -I$(srcdir)/src/pg/values -I$(srcdir)/src/pg/funcs -I$(srcdir)/src/pg/agg \
	-I$(srcdir)/src/pg/seen -I$(srcdir)/src/pg/prefilter -I$(srcdir)/src/core


PG_CONFIG ?= pg_config
PGXS := $(shell $(PG_CONFIG) --pgxs)
include $(PGXS)

# the core's symbols stay inside cuckoo.so: only the glue's entry points
# (PG_FUNCTION_INFO_V1, _PG_init) are exported (test/layering.sh checks)
$(CORE_OBJS): CFLAGS += -fvisibility=hidden

# PGXS does not track header dependencies: every object depends on the headers
$(CORE_OBJS): $(wildcard $(srcdir)/src/core/*.h)
$(PG_OBJS): $(wildcard $(srcdir)/src/core/*.h) $(wildcard $(srcdir)/src/pg/*.h) $(wildcard $(srcdir)/src/pg/*/*.h)

# soft input errors (pg_input_is_valid) exist from PostgreSQL 16 on
ifeq ($(shell test $(MAJORVERSION) -ge 16 && echo yes),yes)
REGRESS += cuckoo_soft_input
endif

# the join pre-filter with foreign tables needs contrib's postgres_fdw and file_fdw
ifneq ($(wildcard $(pkglibdir)/postgres_fdw.so),)
ifneq ($(wildcard $(pkglibdir)/file_fdw.so),)
REGRESS += cuckoo_prefilter_fdw
endif
endif

# the core as a library outside PostgreSQL: make lib, make check-lib, make
# install-libcuckoo PREFIX=... (src/core/lib.mk; PGXS builds nothing of it,
# and its own install-lib and clean-lib stay as they are)
CF_LIB_INSTALL = install-libcuckoo
CF_LIB_CLEAN = clean-libcuckoo
include $(dir $(firstword $(MAKEFILE_LIST)))src/core/lib.mk
