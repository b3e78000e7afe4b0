#!/usr/bin/env python3
"""Writes three small SystemTap profiles shaped like the seed study's runs (MySQL 5.7
insert throughput with sync_binlog / innodb_flush_log_at_trx_commit = 1/1, 0/1, 0/0),
as `print_stack(k); print_ustack(u); printf("\\t%d\\n", n)` prints them, with off-CPU
blocks marked by a leading `---` (the seed's `printf("---")`).

Each file's weights add up to exactly 10000 so the shares are exact:
  b1e1: MYSQL_BIN_LOG::sync_binlog_file       36.80 %  (180 on-CPU + 3500 off-CPU)
  b0e1: log_write_flush_to_disk_low           31.23 %  (123 on-CPU + 3000 off-CPU)
  b0e0: log_write_flush_to_disk_low           absent
Deterministic: running it again gives identical bytes.
"""
import os

BASE = ["__clone", "start_thread", "pfs_spawn_thread", "handle_connection",
        "_Z10do_commandP3THD",
        "_Z16dispatch_commandP3THDPK8COM_DATA19enum_server_command"]
PARSE = BASE + ["_Z11mysql_parseP3THDP12Parser_state", "_Z21mysql_execute_commandP3THDb"]
INSERT = PARSE + ["_ZN14Sql_cmd_insert7executeEP3THD", "_Z12write_recordP3THDP5TABLEP9COPY_INFOS4_",
                  "_ZN11ha_innobase9write_rowEPh", "_Z20row_insert_for_mysqlPKhP14row_prebuilt_t",
                  "_Z12row_ins_stepP9que_thr_t"]
COMMIT = PARSE + ["_Z17trans_commit_stmtP3THD", "_Z15ha_commit_transP3THDbb",
                  "_ZN13MYSQL_BIN_LOG6commitEP3THDb", "_ZN13MYSQL_BIN_LOG14ordered_commitEP3THDbb"]
SYNC = COMMIT + ["_ZN13MYSQL_BIN_LOG16sync_binlog_fileEb", "my_sync", "fsync"]
REDO = COMMIT + ["_ZN13MYSQL_BIN_LOG25process_flush_stage_queueEPyPbPP3THD",
                 "_Z13ha_flush_logsP10handlertonb", "_ZL19innobase_flush_logsP10handlertonb",
                 "_Z24log_buffer_flush_to_diskb", "_Z15log_write_up_tomb",
                 "_ZL27log_write_flush_to_disk_lowv", "_Z9fil_flushm", "_Z19os_file_fsync_posixi", "fsync"]
NET = BASE + ["_ZN3THD21send_statement_statusEv", "net_flush", "vio_write", "__libc_send"]
POLL = BASE[:-1] + ["_ZN16Protocol_classic11get_commandEP8COM_DATAP19enum_server_command",
                    "_Z8vio_readP3VioPhm", "__poll"]
LOCK = INSERT + ["_Z27lock_wait_suspend_threadP9que_thr_t", "os_event_wait_low",
                 "pthread_cond_wait@@GLIBC_2.3.2"]
FSYNC_K = ["system_call_fastpath", "SyS_fsync", "do_fsync", "ext4_sync_file",
           "jbd2_complete_transaction", "jbd2_log_wait_commit"]
SLEEP_K = ["schedule", "__schedule", "finish_task_switch"]
ON_K = {"fsync": ["system_call_fastpath", "SyS_fsync", "do_fsync", "ext4_sync_file", "_raw_spin_lock"],
        "send": ["system_call_fastpath", "SyS_sendto", "tcp_sendmsg", "copy_user_enhanced_fast_string"]}

PROFILES = {
    "b1e1": [("on", INSERT + ["_Z26page_cur_search_with_matchPK11buf_block_tPK12dict_index_tPK8dtuple_t15page_cur_mode_tPmS9_P10page_cur_tPv"], [], 2000),
             ("on", SYNC, ON_K["fsync"], 180),
             ("on", REDO, ON_K["fsync"], 120),
             ("on", NET, ON_K["send"], 300),
             ("off", SYNC, FSYNC_K + SLEEP_K, 3500),
             ("off", REDO, FSYNC_K + SLEEP_K, 2900),
             ("off", POLL, ["system_call_fastpath", "SyS_poll", "do_sys_poll"] + SLEEP_K, 1000)],
    "b0e1": [("on", INSERT + ["_Z26page_cur_search_with_matchPK11buf_block_tPK12dict_index_tPK8dtuple_t15page_cur_mode_tPmS9_P10page_cur_tPv"], [], 2500),
             ("on", REDO, ON_K["fsync"], 123),
             ("on", NET, ON_K["send"], 377),
             ("off", REDO, FSYNC_K + SLEEP_K, 3000),
             ("off", POLL, ["system_call_fastpath", "SyS_poll", "do_sys_poll"] + SLEEP_K, 1500),
             ("off", LOCK, ["system_call_fastpath", "SyS_futex", "futex_wait"] + SLEEP_K, 2500)],
    "b0e0": [("on", INSERT + ["_Z26page_cur_search_with_matchPK11buf_block_tPK12dict_index_tPK8dtuple_t15page_cur_mode_tPmS9_P10page_cur_tPv"], [], 4000),
             ("on", NET, ON_K["send"], 600),
             ("off", POLL, ["system_call_fastpath", "SyS_poll", "do_sys_poll"] + SLEEP_K, 2000),
             ("off", LOCK, ["system_call_fastpath", "SyS_futex", "futex_wait"] + SLEEP_K, 3400)],
}


def addr(name, user):
    h = 0
    for c in name:
        h = (h * 131 + ord(c)) & 0xFFFFFF
    return (0x400000 + h) if user else (0xFFFFFFFF81000000 + h)


def block(kind, user, kernel, count):
    lines = []
    for name in reversed(kernel):  # kernel part first, leaf first
        lines.append(" 0x%x : %s+0x%x/0x%x [kernel]" % (addr(name, False), name, len(name), 0x200))
    for name in reversed(user):
        lines.append(" 0x%x : %s+0x%x/0x%x [/usr/sbin/mysqld]" % (addr(name, True), name, len(name) * 3, 0x400))
    if kind == "off":
        lines[0] = "---" + lines[0]
    lines.append("\t%d" % count)
    return "\n".join(lines) + "\n"


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    for name, blocks in PROFILES.items():
        assert sum(b[3] for b in blocks) == 10000, name
        with open(os.path.join(here, "stap-seed-%s.txt" % name), "w") as f:
            for kind, user, kernel, count in blocks:
                f.write(block(kind, user, kernel, count))


if __name__ == "__main__":
    main()
