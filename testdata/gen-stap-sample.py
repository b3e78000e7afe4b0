#!/usr/bin/env python3
"""Write a synthetic SystemTap on-/off-CPU stack sample for a mysqld insert workload.

SystemTap cannot be used on the machine where flametui's test data was made,
so this script builds the file `stap-mysqld-on-off.txt` by hand. It copies
the exact text that a profiling script like the one below prints in its
`probe end`:

    foreach ([k, u] in oncpu+) {          # timer.profile, counted in samples
        print_stack(k); print_ustack(u)
        printf("\\t%d\\n", @count(oncpu[k, u]))
    }
    foreach ([k, u] in offcpu+) {         # scheduler.cpu_off/on, summed in us
        printf("---"); print_stack(k); print_ustack(u)
        printf("\\t%d\\n", @sum(offcpu[k, u]))
    }

Line formats (from SystemTap's runtime/sym.c, `print_syms`):
    " 0xADDR : SYMBOL+0xOFF/0xSIZE [MODULE]"   resolved frame
    " 0xADDR : 0xADDR [MODULE+0xOFF/0xSIZE]"   module known, no symbol
    "\\tCOUNT"                                  end of one stack
Kernel frames come first (leaf to root), then user frames (leaf to root).
MODULE is "kernel" for vmlinux, the module name for kernel modules
(ext4, jbd2) and the full path for user-space objects.

What the output contains, on purpose:
  * on-CPU stacks (no marker), sorted by ascending count like `oncpu+`;
    some have kernel frames (network I/O, write(2), a page fault), some are
    user-only (print_stack of an empty backtrace prints nothing);
  * off-CPU stacks in microseconds, sorted ascending. Most have `---` glued
    in front of the first frame line, as `printf("---"); print_stack(...)`
    prints. One (the idle client in poll) has `---` alone on its own line,
    as a script with `printf("---\\n")` prints. One has an empty kernel part,
    so `---` is glued to the first *user* frame;
  * mangled C++ names (checked with g++ -c and c++filt), versioned glibc
    names (pthread_cond_timedwait@@GLIBC_2.3.2) and one stripped-library
    frame with no symbol.

The output is deterministic: addresses and sizes come from crc32 of the
names, never from a random generator. Usage:

    python3 gen-stap-sample.py [OUTPUT]     (default: stap-mysqld-on-off.txt
                                             next to this script; "-" = stdout)
"""

import os
import sys
import zlib

MYSQLD = "/usr/sbin/mysqld"
LIBPTHREAD = "/usr/lib64/libpthread-2.17.so"
LIBC = "/usr/lib64/libc-2.17.so"
LIBZ = "/usr/lib64/libz.so.1.2.7"

# Where each object's text starts (kernel modules live above vmlinux,
# mysqld is a non-PIE executable, shared libraries are mmapped high).
MODULE_BASE = {
    "kernel": 0xFFFFFFFF81000000,
    "jbd2": 0xFFFFFFFFA0131000,
    "ext4": 0xFFFFFFFFA01A2000,
    MYSQLD: 0x6A4000,
    LIBC: 0x7F3C69D33000,
    LIBPTHREAD: 0x7F3C6A0E4000,
    LIBZ: 0x7F3C6A50F000,
}

# ---------------------------------------------------------------- frames --
# Each chain is listed leaf first, the order print_stack prints it in.

K_SCHED = [("__schedule", "kernel"), ("schedule", "kernel")]
K_SYSCALL = ("system_call_fastpath", "kernel")

K_FSYNC_JOURNAL = K_SCHED + [
    ("jbd2_log_wait_commit", "jbd2"),
    ("jbd2_complete_transaction", "jbd2"),
    ("ext4_sync_file", "ext4"),
    ("vfs_fsync_range", "kernel"),
    ("do_fsync", "kernel"),
    ("SyS_fsync", "kernel"),
    K_SYSCALL,
]

K_FSYNC_WRITEBACK = K_SCHED + [
    ("schedule_timeout", "kernel"),
    ("io_schedule_timeout", "kernel"),
    ("io_schedule", "kernel"),
    ("sleep_on_page", "kernel"),
    ("__wait_on_bit", "kernel"),
    ("wait_on_page_bit", "kernel"),
    ("filemap_fdatawait_range", "kernel"),
    ("filemap_write_and_wait_range", "kernel"),
    ("ext4_sync_file", "ext4"),
    ("vfs_fsync_range", "kernel"),
    ("do_fsync", "kernel"),
    ("SyS_fsync", "kernel"),
    K_SYSCALL,
]

K_FUTEX_WAIT = K_SCHED + [
    ("futex_wait_queue_me", "kernel"),
    ("futex_wait", "kernel"),
    ("do_futex", "kernel"),
    ("SyS_futex", "kernel"),
    K_SYSCALL,
]

K_POLL_WAIT = K_SCHED + [
    ("schedule_hrtimeout_range_clock", "kernel"),
    ("schedule_hrtimeout_range", "kernel"),
    ("poll_schedule_timeout", "kernel"),
    ("do_sys_poll", "kernel"),
    ("SyS_poll", "kernel"),
    K_SYSCALL,
]

K_RECV = [
    ("copy_user_enhanced_fast_string", "kernel"),
    ("memcpy_toiovec", "kernel"),
    ("skb_copy_datagram_iovec", "kernel"),
    ("tcp_recvmsg", "kernel"),
    ("inet_recvmsg", "kernel"),
    ("sock_recvmsg", "kernel"),
    ("SYSC_recvfrom", "kernel"),
    ("SyS_recvfrom", "kernel"),
    K_SYSCALL,
]

K_SEND = [
    ("_raw_spin_unlock_irqrestore", "kernel"),
    ("__wake_up_sync_key", "kernel"),
    ("sock_def_readable", "kernel"),
    ("tcp_rcv_established", "kernel"),
    ("tcp_v4_do_rcv", "kernel"),
    ("tcp_v4_rcv", "kernel"),
    ("ip_local_deliver_finish", "kernel"),
    ("ip_local_deliver", "kernel"),
    ("ip_rcv_finish", "kernel"),
    ("ip_rcv", "kernel"),
    ("__netif_receive_skb_core", "kernel"),
    ("__netif_receive_skb", "kernel"),
    ("process_backlog", "kernel"),
    ("net_rx_action", "kernel"),
    ("__do_softirq", "kernel"),
    ("call_softirq", "kernel"),
    ("do_softirq", "kernel"),
    ("local_bh_enable", "kernel"),
    ("dev_queue_xmit", "kernel"),
    ("ip_finish_output", "kernel"),
    ("ip_output", "kernel"),
    ("ip_local_out_sk", "kernel"),
    ("ip_queue_xmit", "kernel"),
    ("tcp_transmit_skb", "kernel"),
    ("tcp_write_xmit", "kernel"),
    ("__tcp_push_pending_frames", "kernel"),
    ("tcp_push", "kernel"),
    ("tcp_sendmsg", "kernel"),
    ("inet_sendmsg", "kernel"),
    ("sock_sendmsg", "kernel"),
    ("SYSC_sendto", "kernel"),
    ("SyS_sendto", "kernel"),
    K_SYSCALL,
]

K_WRITE = [
    ("copy_user_enhanced_fast_string", "kernel"),
    ("iov_iter_copy_from_user_atomic", "kernel"),
    ("generic_file_buffered_write", "kernel"),
    ("__generic_file_aio_write", "kernel"),
    ("generic_file_aio_write", "kernel"),
    ("ext4_file_write", "ext4"),
    ("do_sync_write", "kernel"),
    ("vfs_write", "kernel"),
    ("SyS_write", "kernel"),
    K_SYSCALL,
]

K_PAGE_FAULT = [
    ("clear_page_c_e", "kernel"),
    ("do_huge_pmd_anonymous_page", "kernel"),
    ("handle_mm_fault", "kernel"),
    ("__do_page_fault", "kernel"),
    ("do_page_fault", "kernel"),
    ("page_fault", "kernel"),
]


def my(*names):
    return [(n, MYSQLD) for n in names]


# Bottom of every connection thread.
U_THREAD_ROOT = my("handle_connection", "pfs_spawn_thread") + [
    ("start_thread", LIBPTHREAD),
    ("clone", LIBC),
]
U_BG_THREAD_ROOT = [("start_thread", LIBPTHREAD), ("clone", LIBC)]

U_DISPATCH = my(
    "_Z16dispatch_commandP3THDPK8COM_DATA19enum_server_command",
    "_Z10do_commandP3THD",
) + U_THREAD_ROOT

U_EXECUTE = my(
    "_Z21mysql_execute_commandP3THDb",
    "_Z11mysql_parseP3THDP12Parser_state",
) + U_DISPATCH

U_INSERT_STMT = my(
    "_ZN11ha_innobase9write_rowEPh",
    "_ZN7handler12ha_write_rowEPh",
    "_Z12write_recordP3THDP5TABLEP9COPY_INFOS4_",
    "_ZN14Sql_cmd_insert12mysql_insertEP3THDP10TABLE_LIST",
    "_ZN14Sql_cmd_insert7executeEP3THD",
) + U_EXECUTE

U_ROW_INSERT = my(
    "_ZL36row_insert_for_mysql_using_ins_graphPKhP14row_prebuilt_t",
    "_Z20row_insert_for_mysqlPKhP14row_prebuilt_t",
) + U_INSERT_STMT

U_CLUST_INSERT = my(
    "_Z29row_ins_clust_index_entry_lowmmP12dict_index_tmP8dtuple_tmP9que_thr_tb",
    "_Z25row_ins_clust_index_entryP12dict_index_tP8dtuple_tP9que_thr_tmb",
    "_ZL24row_ins_index_entry_stepP10ins_node_tP9que_thr_t",
    "_ZL7row_insP10ins_node_tP9que_thr_t",
    "_Z12row_ins_stepP9que_thr_t",
) + U_ROW_INSERT

U_COMMIT = my(
    "_ZN13MYSQL_BIN_LOG14ordered_commitEP3THDbb",
    "_ZN13MYSQL_BIN_LOG6commitEP3THDb",
    "_Z15ha_commit_transP3THDbb",
    "_Z17trans_commit_stmtP3THD",
) + U_EXECUTE

U_FLUSH_STAGE = my("_ZN13MYSQL_BIN_LOG25process_flush_stage_queueEPyPbPP3THD") + U_COMMIT

U_READ_PACKET = my(
    "_ZL12my_real_readP6st_netPm",
    "my_net_read",
    "_ZN16Protocol_classic11read_packetEv",
    "_ZN16Protocol_classic11get_commandEP8COM_DATAP19enum_server_command",
    "_Z10do_commandP3THD",
) + U_THREAD_ROOT

U_REDO_FSYNC = [("fsync", LIBPTHREAD)] + my(
    "_ZL19os_file_fsync_posixi",
    "_Z18os_file_flush_funci",
    "_Z9fil_flushm",
    "_ZL27log_write_flush_to_disk_lowv",
    "_Z15log_write_up_tomb",
    "_Z24log_buffer_flush_to_diskb",
    "_ZL19innobase_flush_logsP10handlertonb",
    "_ZL16flush_handlertonP3THDPP13st_plugin_intPv",
    "_Z24plugin_foreach_with_maskP3THDPFcS0_PP13st_plugin_intPvEijS4_",
    "_Z13ha_flush_logsP10handlertonb",
) + U_FLUSH_STAGE

# Each stack: (off_cpu, marker, kernel frames, user frames, count, leaf variant)
# marker: "glued" (printf("---")), "line" (printf("---\n")) or None (on-CPU).
STACKS = [
    # ----- on-CPU (timer.profile samples) -----
    (False, None, [], my(
        "_ZL13lex_one_tokenP7YYSTYPEP3THD",
        "_Z8MYSQLlexP7YYSTYPEP7YYLTYPEP3THD",
        "_Z10MYSQLparseP3THD",
        "_Z9parse_sqlP3THDP12Parser_stateP19Object_creation_ctx",
        "_Z11mysql_parseP3THDP12Parser_state",
    ) + U_DISPATCH, 6, "lex"),
    (False, None, K_PAGE_FAULT, [("__memset_sse2", LIBC)] + my(
        "_Z26mem_heap_create_block_funcP16mem_block_info_tmm",
        "_Z20row_insert_for_mysqlPKhP14row_prebuilt_t",
    ) + U_INSERT_STMT, 9, "fault"),
    (False, None, [], [(None, LIBZ)] + my(
        "my_checksum",
        "_ZN19Binlog_event_writer5writeEPKhm",
        "_ZN13MYSQL_BIN_LOG11write_cacheEP3THDP17binlog_cache_dataP19Binlog_event_writer",
        "_ZN17binlog_cache_data5flushEP3THDPyPb",
        "_ZN13MYSQL_BIN_LOG19flush_thread_cachesEP3THD",
    ) + U_FLUSH_STAGE, 14, "crc"),
    (False, None, K_WRITE, [("__write_nocancel", LIBPTHREAD)] + my(
        "my_write",
        "my_b_flush_io_cache",
        "_ZN13MYSQL_BIN_LOG19flush_cache_to_fileEPy",
    ) + U_COMMIT, 23, "write"),
    (False, None, K_RECV, [("recv", LIBPTHREAD)] + my(
        "vio_read",
        "vio_read_buff",
    ) + U_READ_PACKET, 31, "recv"),
    (False, None, [], [("__memcpy_ssse3_back", LIBC)] + my(
        "_Z13log_write_lowPKhm",
        "_ZN5mtr_t7Command7executeEv",
        "_ZN5mtr_t6commitEv",
    ) + U_CLUST_INSERT, 47, "mtr"),
    (False, None, K_SEND, [("send", LIBPTHREAD)] + my(
        "vio_write",
        "_ZL18net_write_raw_loopP6st_netPKhm",
        "net_flush",
        "_ZL11net_send_okP3THDjjyyPKcb",
        "_ZN16Protocol_classic7send_okEjjyyPKc",
        "_ZN3THD21send_statement_statusEv",
    ) + U_DISPATCH, 68, "send"),
    (False, None, [], my(
        "_Z23page_cur_insert_rec_lowPhP12dict_index_tPKhPmP5mtr_t",
        "_Z25btr_cur_optimistic_insertmP9btr_cur_tPPmPP16mem_block_info_tP8dtuple_tPPhPP9big_rec_tmP9que_thr_tP5mtr_t",
    ) + U_CLUST_INSERT, 112, "btr"),
    # ----- off-CPU (scheduler, microseconds) -----
    (True, "glued", [], [
        ("__lll_lock_wait", LIBPTHREAD),
        ("_L_lock_812", LIBPTHREAD),
        ("pthread_mutex_lock", LIBPTHREAD),
    ] + my(
        "_ZN13Stage_manager10enroll_forENS_7StageIDEP3THDP14st_mysql_mutex",
        "_ZN13MYSQL_BIN_LOG12change_stageEP3THDN13Stage_manager7StageIDES1_P14st_mysql_mutexS5_",
    ) + U_COMMIT, 48213, None),
    (True, "glued", K_FUTEX_WAIT, [("pthread_cond_wait@@GLIBC_2.3.2", LIBPTHREAD)] + my(
        "_ZN8os_event8wait_lowEl",
        "_Z17os_event_wait_lowP8os_eventl",
        "_Z24lock_wait_suspend_threadP9que_thr_t",
        "_Z23row_mysql_handle_errorsPiP5trx_tP9que_thr_tPv",
    ) + U_ROW_INSERT, 172904, None),
    (True, "glued", K_FSYNC_WRITEBACK, U_REDO_FSYNC, 291377, None),
    (True, "glued", K_FUTEX_WAIT, [("pthread_cond_timedwait@@GLIBC_2.3.2", LIBPTHREAD)] + my(
        "_ZN8os_event10timed_waitEPK8timespec",
        "_ZN8os_event13wait_time_lowEml",
        "_Z22os_event_wait_time_lowP8os_eventml",
        "_Z34buf_flush_page_cleaner_coordinatorPv",
    ) + U_BG_THREAD_ROOT, 605118, None),
    (True, "line", K_POLL_WAIT, [("__poll_nocancel", LIBC)] + my(
        "vio_io_wait",
        "vio_socket_io_wait",
        "vio_read",
        "vio_read_buff",
    ) + U_READ_PACKET, 987431, None),
    (True, "glued", K_FSYNC_JOURNAL, U_REDO_FSYNC, 1126540, None),
    (True, "glued", K_FSYNC_JOURNAL, [("fsync", LIBPTHREAD)] + my(
        "my_sync",
        "_ZN13MYSQL_BIN_LOG16sync_binlog_fileEb",
    ) + U_COMMIT, 1834522, None),
]


def crc(text):
    return zlib.crc32(text.encode())


def build_symbol_table():
    """Lay out every symbol used by STACKS in its module: {(name, module): (start, size)}."""
    names = {}
    for _, _, kernel, user, _, _ in STACKS:
        for name, module in kernel + user:
            if name is not None:
                names.setdefault(module, set()).add(name)
    table = {}
    for module, syms in names.items():
        addr = MODULE_BASE[module] + 0x1000 + crc(module) % 0x4000
        for name in sorted(syms, key=lambda n: (crc(module + n), n)):
            addr = (addr + 0xF) & ~0xF  # functions are 16-byte aligned
            size = 0x30 + crc(name) % 0x900
            table[(name, module)] = (addr, size)
            addr += size + crc(name + "/gap") % 0x3000
    return table


def frame_offset(name, size, callee, variant):
    """A stable return-address offset: the same call site always gets the same offset."""
    if callee is not None:
        key = "%s<%s" % (name, callee)  # call site of the frame below
    elif variant is None:
        key = name + "<leaf>"  # e.g. the sched_switch tracepoint inside __schedule
    else:
        key = "%s<leaf:%s" % (name, variant)  # where the profile timer hit
    return 5 + crc(key) % (size - 8)


def format_frames(frames, table, variant):
    lines = []
    for i, (name, module) in enumerate(frames):
        callee = frames[i - 1][0] if i > 0 else None
        if name is None:
            # Stripped library: only module and offset are known.
            base = MODULE_BASE[module]
            off = 0x2E00 + crc(module + str(variant)) % 0x400
            addr = base + off
            lines.append(" 0x%x : 0x%x [%s+0x%x/0x%x]" % (addr, addr, module, off, 0x21000))
            continue
        start, size = table[(name, module)]
        off = frame_offset(name, size, callee, variant)
        lines.append(" 0x%x : %s+0x%x/0x%x [%s]" % (start + off, name, off, size, module))
    return lines


def render():
    table = build_symbol_table()
    out = []
    for off_cpu, marker, kernel, user, count, variant in STACKS:
        assert off_cpu == (marker is not None)
        # The kernel and user parts are unwound separately, so the root of the
        # kernel part and the leaf of the user part have no call-site relation.
        lines = format_frames(kernel, table, variant) + format_frames(user, table, variant)
        if marker == "line":
            out.append("---")
        elif marker == "glued":
            lines[0] = "---" + lines[0]
        out.extend(lines)
        out.append("\t%d" % count)
    return "\n".join(out) + "\n"


def main():
    target = sys.argv[1] if len(sys.argv) > 1 else os.path.join(
        os.path.dirname(os.path.abspath(__file__)), "stap-mysqld-on-off.txt")
    text = render()
    if target == "-":
        sys.stdout.write(text)
    else:
        with open(target, "w") as f:
            f.write(text)


if __name__ == "__main__":
    main()
