/* tests/test_gtp.c -- the GTP engine: scripted sessions with exact replies, driven in-process
 * through gtp_engine_handle_line / gtp_engine_run, and once through the real `shido gtp` binary
 * over a pipe. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "go/playout.h"
#include "go/sgf.h"
#include "tools/gtp.h"

#include "tests/common.h"
#include "tests/shido_pipe.h"

#define DATA_GTP SHIDO_TEST_DATA "/gtp"

static void expect(gtp_engine *e, const char *script, const char *replies)
{
    char *got = test_gtp_feed(e, script, true);
    ck_assert_str_eq(got, replies);
    free(got);
}

/* The text of a successful reply to one command, without "= " and the closing empty line. */
static char *answer(gtp_engine *e, const char *command)
{
    char *got = test_gtp_feed(e, command, true);
    size_t n = strlen(got);
    ck_assert_msg(n >= 3 && got[0] == '=' && !strcmp(got + n - 2, "\n\n"), "%s: %s", command, got);
    got[n - 2] = 0;
    size_t skip = got[1] == ' ' ? 2 : 1;
    memmove(got, got + skip, n - 2 - skip + 1);
    return got;
}

static void engine_up(gtp_engine *e)
{
    ck_assert(gtp_engine_init(e));
}

/* Runs gtp_engine_run over len bytes of input; returns the replies (malloc'd). */
static char *run_bytes(gtp_engine *e, const char *input, size_t len, int *rc)
{
    char *out = NULL;
    size_t out_len = 0;
    FILE *in = fmemopen((void *)input, len, "r");
    FILE *f = open_memstream(&out, &out_len);
    ck_assert(in && f);
    *rc = gtp_engine_run(e, in, f);
    fclose(in);
    fclose(f);
    return out;
}

START_TEST(test_ids_and_admin)
{
    gtp_engine e;
    engine_up(&e);
    expect(&e, "protocol_version\n12 name\n  7   version  \n# a comment\n\n   \n",
           "= 2\n\n=12 shido\n\n=7 0.17 (Leela Zero GTP level; shido 0.1.0)\n\n");
    expect(&e, "known_command play\nknown_command genmove\nknown_command\n",
           "= true\n\n= false\n\n? syntax error\n\n");
    expect(&e, "3 frobnicate\nname # trailing comment\nknown_command\tplay\nname\r\nNAME\n",
           "?3 unknown command\n\n= shido\n\n= true\n\n= shido\n\n? unknown command\n\n");
    expect(&e, "name extra\n42\n", "? syntax error\n\n?42 unknown command\n\n");
    expect(&e, "list_commands\n",
           "= protocol_version\nname\nversion\nknown_command\nlist_commands\nquit\nboardsize\n"
           "rectangular_boardsize\nclear_board\nkomi\nget_komi\nplay\nundo\nfixed_handicap\n"
           "place_free_handicap\nset_free_handicap\nloadsgf\nprintsgf\nshowboard\nfinal_score\n"
           "final_status_list\n"
           "time_settings\ntime_left\nkgs-time_settings\nkata-time_settings\n"
           "kata-list_time_settings\nkata-get-rules\nkata-set-rules\nkata-set-rule\nkgs-rules\n"
           "set_position\ntsumego_solve\n\n");
    /* Every listed command is known, and quit ends the session only when it succeeds. */
    char *list = answer(&e, "list_commands");
    for (char *name = strtok(list, "\n"); name; name = strtok(NULL, "\n")) {
        char cmd[64];
        snprintf(cmd, sizeof cmd, "known_command %s", name);
        expect(&e, cmd, "= true\n\n");
    }
    free(list);
    FILE *null = fopen("/dev/null", "w");
    ck_assert(gtp_engine_handle_line(&e, "quit now", null));
    ck_assert(!gtp_engine_handle_line(&e, "9 quit", null));
    fclose(null);
    gtp_engine_free(&e);
}
END_TEST

START_TEST(test_quit_reply_and_run)
{
    gtp_engine e;
    engine_up(&e);
    int rc;
    const char in[] = "name\n5 quit\nname\n";
    char *got = run_bytes(&e, in, sizeof in - 1, &rc);
    ck_assert_int_eq(rc, 0);
    ck_assert_str_eq(got, "= shido\n\n=5\n\n");
    free(got);
    /* A last line without newline is still a command. */
    got = run_bytes(&e, "name", 4, &rc);
    ck_assert_str_eq(got, "= shido\n\n");
    free(got);
    gtp_engine_free(&e);
}
END_TEST

START_TEST(test_boardsize_komi_clear)
{
    gtp_engine e;
    engine_up(&e);
    ck_assert_int_eq(e.game.board.size, 19);
    ck_assert(e.game.komi == 7.5f);
    expect(&e, "boardsize 9\nboardsize 1\nboardsize 20\nboardsize x\nboardsize\nboardsize 99999999999\n",
           "=\n\n? unacceptable size\n\n? unacceptable size\n\n? syntax error\n\n"
           "? syntax error\n\n? syntax error\n\n");
    ck_assert_int_eq(e.game.board.size, 9);
    expect(&e, "komi 6.5\nkomi -3\nkomi nan\nkomi inf\nkomi 1e300\nkomi 6.5x\nkomi\n",
           "=\n\n=\n\n? syntax error\n\n? syntax error\n\n? syntax error\n\n? syntax error\n\n"
           "? syntax error\n\n");
    ck_assert(e.game.komi == -3.0f);
    /* KataGo's bounds, the JSON analysis' too: multiples of 0.5 within [-150, 150] */
    static const char *const bad_komi[] = {"1e9", "-1e30", "7.25", "150.5", "-151", "0.1"};
    for (int i = 0; i < 6; i++) {
        char cmd[64];
        snprintf(cmd, sizeof cmd, "komi %s\n", bad_komi[i]);
        expect(&e, cmd, "? komi must be a multiple of 0.5 within [-150, 150]\n\n");
    }
    ck_assert(e.game.komi == -3.0f);
    expect(&e, "get_komi\nkomi 150\nget_komi\nkomi -149.5\nget_komi\nkomi -3\n",
           "= -3\n\n=\n\n= 150\n\n=\n\n= -149.5\n\n=\n\n");
    /* boardsize keeps komi and rules, clears the board; clear_board keeps the size. */
    expect(&e, "kata-set-rules japanese\nplay b e5\nboardsize 5\n", "=\n\n=\n\n=\n\n");
    ck_assert_int_eq(e.game.board.size, 5);
    ck_assert(e.game.komi == -3.0f);
    ck_assert_int_eq(e.game.rules.scoring, GO_SCORING_TERRITORY);
    expect(&e, "play b c3\nclear_board\n", "=\n\n=\n\n");
    ck_assert_int_eq(e.game.board.size, 5);
    ck_assert_int_eq(e.game.num_moves, 0);
    ck_assert_int_eq(e.game.board.num_empty, 25);
    expect(&e, "boardsize 2\nplay b a1\nplay w b2\n", "=\n\n=\n\n=\n\n");
    gtp_engine_free(&e);
}
END_TEST

/* KataGo's rectangles: boardsize W H, boardsize W:H, rectangular_boardsize W H (W columns). */
START_TEST(test_rectangular_boards)
{
    gtp_engine e;
    engine_up(&e);
    expect(&e, "boardsize 9 20\nboardsize 9 x\nboardsize 9:13 5\nboardsize 9:\nboardsize 1:9\n",
           "? unacceptable size\n\n? syntax error\n\n? syntax error\n\n? syntax error\n\n"
           "? unacceptable size\n\n");
    expect(&e, "rectangular_boardsize 13 9\nboardsize 9:13\nboardsize 9 13\n", "=\n\n=\n\n=\n\n");
    ck_assert_int_eq(e.game.board.width, 9);
    ck_assert_int_eq(e.game.board.height, 13);
    /* J13 is the top right point; K (a tenth column) and row 14 are off this board */
    expect(&e, "play b j13\nplay b k1\nplay b a14\nplay w a13\n",
           "=\n\n? illegal move\n\n? illegal move\n\n=\n\n");
    char *board = answer(&e, "showboard");
    ck_assert_msg(strstr(board, "    A B C D E F G H J\n13 (O . . . . . . . X 13\n") &&
                      strstr(board, "\n 1  . . . . . . . . . 1\n") && !strstr(board, "14"),
                  "%s", board);
    free(board);
    char *sgf = answer(&e, "printsgf");
    ck_assert_msg(strstr(sgf, "SZ[9:13]") && strstr(sgf, "B[ia]") && strstr(sgf, "W[aa]"), "%s",
                  sgf);
    free(sgf);
    /* area scoring over the 117 points: one black stone and one white, the rest neutral */
    expect(&e, "clear_board\nkomi 7.5\nfinal_score\nplay b e7\nfinal_score\n",
           "=\n\n=\n\n= W+7.5\n\n=\n\n= B+109.5\n\n");
    ck_assert_int_eq(e.game.board.width * 100 + e.game.board.height, 913);
    /* handicap: the fixed points are a square board's; free ones start at the corners */
    expect(&e, "clear_board\nfixed_handicap 2\nplace_free_handicap 5\n",
           "=\n\n? invalid handicap\n\n= C3 G11 C11 G3 E7\n\n");
    expect(&e, "clear_board\nset_free_handicap a1 j13\nset_position b a1 w j13 b e13\n",
           "=\n\n=\n\n=\n\n");
    ck_assert_int_eq(e.game.board.height, 13);
    ck_assert_int_eq(e.game.board.num_empty, 114);
    expect(&e, "tsumego_solve\n", "? the tsumego solver takes square boards only\n\n");
    expect(&e, "boardsize 19\n", "=\n\n");
    ck_assert(go_board_square(&e.game.board));
    gtp_engine_free(&e);
}
END_TEST

START_TEST(test_play)
{
    gtp_engine e;
    engine_up(&e);
    expect(&e, "boardsize 9\nplay b d4\nplay b d4\nplay black e4\nplay WHITE pass\nplay w j9\n",
           "=\n\n=\n\n? illegal move\n\n=\n\n=\n\n=\n\n");
    ck_assert_int_eq(e.game.num_moves, 4);
    expect(&e, "play x d5\nplay b z99\nplay b i5\nplay b a0\nplay b t19\nplay b k1\nplay b\n",
           "? syntax error\n\n? syntax error\n\n? syntax error\n\n? syntax error\n\n"
           "? illegal move\n\n? illegal move\n\n? syntax error\n\n");
    /* Single-stone suicide is illegal under every rule set; ko retake too. */
    expect(&e, "clear_board\nplay b b1\nplay b a2\nplay w a1\n", "=\n\n=\n\n=\n\n? illegal move\n\n");
    expect(&e,
           "clear_board\nplay b d5\nplay b c4\nplay b d3\nplay w e5\nplay w f4\nplay w e3\n"
           "play w d4\nplay b e4\nplay w d4\n",
           "=\n\n=\n\n=\n\n=\n\n=\n\n=\n\n=\n\n=\n\n=\n\n? illegal move\n\n");
    ck_assert_int_eq(e.game.board.captures[GO_BLACK], 1);
    gtp_engine_free(&e);
}
END_TEST

START_TEST(test_showboard_and_undo_across_captures)
{
    gtp_engine e;
    engine_up(&e);
    expect(&e, "boardsize 5\nplay b b4\nplay w a4\nplay b a3\nplay w b5\nplay b a5\n",
           "=\n\n=\n\n=\n\n=\n\n=\n\n=\n\n");
    /* Black's A5 took the white stone on A4: one capture, and the last move in brackets. */
    expect(&e, "showboard\n",
           "= \n"
           "    A B C D E\n"
           " 5 (X O . . . 5\n"
           " 4  . X . . . 4\n"
           " 3  X . . . . 3\n"
           " 2  . . . . . 2\n"
           " 1  . . . . . 1\n"
           "    A B C D E\n"
           "Black (X) captures: 1\n"
           "White (O) captures: 0\n"
           "White to move\n\n");
    expect(&e, "undo\nshowboard\n",
           "=\n\n= \n"
           "    A B C D E\n"
           " 5  .(O . . . 5\n"
           " 4  O X . . . 4\n"
           " 3  X . . . . 3\n"
           " 2  . . . . . 2\n"
           " 1  . . . . . 1\n"
           "    A B C D E\n"
           "Black (X) captures: 0\n"
           "White (O) captures: 0\n"
           "Black to move\n\n");
    expect(&e, "undo\nundo\nundo\nundo\nundo\nshowboard\n",
           "=\n\n=\n\n=\n\n=\n\n? cannot undo\n\n= \n"
           "    A B C D E\n"
           " 5  . . . . . 5\n"
           " 4  . . . . . 4\n"
           " 3  . . . . . 3\n"
           " 2  . . . . . 2\n"
           " 1  . . . . . 1\n"
           "    A B C D E\n"
           "Black (X) captures: 0\n"
           "White (O) captures: 0\n"
           "Black to move\n\n");
    gtp_engine_free(&e);
}
END_TEST

/* Sorts the words of a vertex list so that lists in different orders compare equal. */
static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static void sort_words(char *s)
{
    char *w[GO_POINTS];
    int n = 0;
    char copy[4096];
    snprintf(copy, sizeof copy, "%s", s);
    for (char *t = strtok(copy, " "); t && n < GO_POINTS; t = strtok(NULL, " "))
        w[n++] = t;
    qsort(w, (size_t)n, sizeof *w, cmp_str);
    s[0] = 0;
    for (int i = 0; i < n; i++) {
        if (i)
            strcat(s, " ");
        strcat(s, w[i]);
    }
}

/* GNU Go 3.8 puts the 12x12 handicap on the 4th line; the GTP 2 spec (4.1.1, as gomill reads it)
 * keeps the 3rd line below 13x13, and so does shido. Moves GNU Go's 12x12 vertices there. */
static void spec_line_for_12x12(char *list)
{
    static const char *gnugo[] = {"D4", "J4", "D9", "J9"}, *spec[] = {"C3", "K3", "C10", "K10"};
    char copy[512];
    snprintf(copy, sizeof copy, "%s", list);
    list[0] = 0;
    for (char *w = strtok(copy, " "); w; w = strtok(NULL, " ")) {
        for (int i = 0; i < 4; i++)
            if (!strcmp(w, gnugo[i]))
                w = (char *)spec[i];
        strcat(strcat(list, *list ? " " : ""), w);
    }
}

/* GNU Go's answers to fixed_handicap for sizes 5..19 and 1..10 stones, recorded in the data
 * file: the same vertex sets (12x12 aside, see above), and the same refusals. */
START_TEST(test_fixed_handicap_matches_gnugo)
{
    FILE *f = fopen(DATA_GTP "/gnugo-fixed-handicap.txt", "r");
    ck_assert_ptr_nonnull(f);
    char line[512];
    int checked = 0;
    while (fgets(line, sizeof line, f)) {
        if (line[0] == '#')
            continue;
        int size, n, off;
        ck_assert(sscanf(line, "%d %d %n", &size, &n, &off) == 2);
        line[strcspn(line, "\n")] = 0;
        char want[512], script[128];
        snprintf(want, sizeof want, "%s", line + off);
        gtp_engine e;
        engine_up(&e);
        snprintf(script, sizeof script, "boardsize %d\nclear_board\nfixed_handicap %d\n", size, n);
        char *got = test_gtp_feed(&e, script, true);
        ck_assert_msg(!strncmp(got, "=\n\n=\n\n", 6), "%s", got);
        char *reply = got + 6;
        reply[strcspn(reply, "\n")] = 0;
        if (want[0] == '=') {
            ck_assert_msg(reply[0] == '=', "size %d n %d: %s", size, n, reply);
            if (size == 12)
                spec_line_for_12x12(want + 2);
            sort_words(want + 2);
            sort_words(reply + 2);
            ck_assert_int_eq(e.game.handicap, n);
            ck_assert_int_eq(e.game.board.to_move, GO_WHITE);
            ck_assert_int_eq(e.game.board.num_empty, size * size - n);
        }
        ck_assert_msg(!strcmp(reply, want), "size %d n %d: got '%s', GNU Go '%s'", size, n, reply,
                      want);
        free(got);
        gtp_engine_free(&e);
        checked++;
    }
    fclose(f);
    ck_assert_int_eq(checked, 150);
}
END_TEST

START_TEST(test_fixed_handicap_errors)
{
    gtp_engine e;
    engine_up(&e);
    char *nine = answer(&e, "fixed_handicap 9");
    sort_words(nine);
    ck_assert_str_eq(nine, "D10 D16 D4 K10 K16 K4 Q10 Q16 Q4");
    free(nine);
    expect(&e, "fixed_handicap 2\nundo\n", "? board not empty\n\n? cannot undo\n\n");
    expect(&e, "clear_board\nfixed_handicap x\nfixed_handicap 1\nfixed_handicap 10\nfixed_handicap\n",
           "=\n\n? syntax error\n\n? invalid handicap\n\n? invalid handicap\n\n? syntax error\n\n");
    expect(&e, "play b pass\nfixed_handicap 2\n", "=\n\n? board not empty\n\n");
    gtp_engine_free(&e);
}
END_TEST

START_TEST(test_place_free_handicap)
{
    /* Where GTP defines fixed points, the free choice is the same. */
    for (int n = 2; n <= 9; n++) {
        gtp_engine a, b;
        engine_up(&a);
        engine_up(&b);
        char cmd[64];
        snprintf(cmd, sizeof cmd, "fixed_handicap %d", n);
        char *fixed = answer(&a, cmd);
        snprintf(cmd, sizeof cmd, "place_free_handicap %d", n);
        char *free_ = answer(&b, cmd);
        ck_assert_str_eq(fixed, free_);
        ck_assert_int_eq(b.game.handicap, n);
        ck_assert_int_eq(b.game.board.to_move, GO_WHITE);
        free(fixed);
        free(free_);
        gtp_engine_free(&a);
        gtp_engine_free(&b);
    }
    /* Beyond 9 on 19x19: the nine fixed points, then the points between them. */
    gtp_engine e;
    engine_up(&e);
    char *nine = answer(&e, "fixed_handicap 9"), want[256];
    snprintf(want, sizeof want, "= %s G13 N7 N13 G7\n\n", nine);
    free(nine);
    expect(&e, "clear_board\n", "=\n\n");
    expect(&e, "place_free_handicap 13\n", want);
    expect(&e, "place_free_handicap 2\nclear_board\nplace_free_handicap 1\nplace_free_handicap 361\n"
               "place_free_handicap x\n",
           "? board not empty\n\n=\n\n? invalid handicap\n\n? invalid handicap\n\n"
           "? syntax error\n\n");
    expect(&e, "boardsize 8\nplace_free_handicap 5\n", "=\n\n= C3 F6 C6 F3 D5\n\n");
    expect(&e, "boardsize 5\nplace_free_handicap 3\n", "=\n\n= C3 B4 D2\n\n");
    /* As many stones as the board takes: all different, one point left empty. */
    for (int size = 2; size <= 19; size++) {
        char script[64];
        snprintf(script, sizeof script, "boardsize %d\nplace_free_handicap %d\n", size,
                 size * size - 1);
        char *got = test_gtp_feed(&e, script, true);
        ck_assert_msg(got[3] == '=', "%s", got);
        ck_assert_int_eq(e.game.board.num_empty, 1);
        ck_assert_int_eq(e.game.handicap, size * size - 1);
        free(got);
    }
    gtp_engine_free(&e);
}
END_TEST

START_TEST(test_set_free_handicap)
{
    gtp_engine e;
    engine_up(&e);
    expect(&e, "boardsize 9\nset_free_handicap c3 c3\nset_free_handicap c3 pass\n"
               "set_free_handicap c3 z3\nset_free_handicap c3 k10\nset_free_handicap\n",
           "=\n\n? bad vertex list\n\n? bad vertex list\n\n"
           "? syntax error\n\n? bad vertex list\n\n? bad vertex list\n\n");
    ck_assert_int_eq(e.game.board.num_empty, 81);
    expect(&e, "set_free_handicap c3 G7 e5\nset_free_handicap a1 a2\n",
           "=\n\n? board not empty\n\n");
    ck_assert_int_eq(e.game.handicap, 3);
    ck_assert_int_eq(e.game.board.to_move, GO_WHITE);
    ck_assert_int_eq(e.game.board.color[go_point_from_gtp(9, "G7")], GO_BLACK);
    expect(&e, "play w d4\nundo\nundo\n", "=\n\n=\n\n? cannot undo\n\n");
    ck_assert_int_eq(e.game.board.num_empty, 78);
    /* One stone, as Leela Zero and KataGo take it (an SGF record with a single AB stone). */
    expect(&e, "clear_board\nset_free_handicap D4\n", "=\n\n=\n\n");
    ck_assert_int_eq(e.game.handicap, 1);
    ck_assert_int_eq(e.game.board.num_empty, 80);
    ck_assert_int_eq(e.game.board.to_move, GO_WHITE);
    gtp_engine_free(&e);
}
END_TEST

/* Replays the first `moves` moves of an SGF file's main line with a plain scan of ";B[xy]" and
 * ";W[xy]", independently of go/sgf. */
static void replay_sgf_text(const char *path, int moves, go_game *g)
{
    char *text = test_read_file(path, NULL);
    ck_assert(go_game_init(g, 19, NULL, 7.5f));
    int played = 0;
    for (const char *s = text; (s = strchr(s, ';')) && played < moves; s++) {
        if ((s[1] != 'B' && s[1] != 'W') || s[2] != '[')
            continue;
        int p = go_point_at(s[3] - 'a', s[4] - 'a');
        ck_assert_int_eq(go_game_play(g, p, s[1] == 'B' ? GO_BLACK : GO_WHITE), GO_MOVE_OK);
        played++;
    }
    free(text);
    ck_assert_int_eq(played, moves);
}

START_TEST(test_loadsgf_meijin)
{
    gtp_engine e;
    engine_up(&e);
    /* Move number 150 is the move about to be played: 149 moves are on the board. The file has
     * no RU: the engine's rules stay. */
    expect(&e, "boardsize 9\nkata-set-rules japanese\nloadsgf " TEST_MEIJIN " 150\n",
           "=\n\n=\n\n=\n\n");
    ck_assert_str_eq(go_rules_name(&e.game.rules), "japanese");
    ck_assert_int_eq(e.game.num_moves, 149);
    ck_assert_int_eq(e.game.board.size, 19);
    ck_assert(e.game.komi == 6.5f);
    ck_assert_int_eq(e.game.board.to_move, GO_WHITE);
    go_game ref;
    replay_sgf_text(TEST_MEIJIN, 149, &ref);
    char diagram[4096], want[8192];
    go_board_to_ascii(&ref.board, diagram, sizeof diagram);
    snprintf(want, sizeof want,
             "= \n%sBlack (X) captures: %d\nWhite (O) captures: %d\nWhite to move\n\n", diagram,
             ref.board.captures[GO_BLACK], ref.board.captures[GO_WHITE]);
    ck_assert(ref.board.captures[GO_BLACK] + ref.board.captures[GO_WHITE] > 0);
    expect(&e, "showboard\n", want);
    ck_assert(!memcmp(e.game.board.color, ref.board.color, sizeof ref.board.color));
    go_game_free(&ref);

    /* Move number 1: the empty board; no move number: the whole game. */
    expect(&e, "loadsgf " TEST_MEIJIN " 1\n", "=\n\n");
    ck_assert_int_eq(e.game.num_moves, 0);
    expect(&e, "loadsgf " TEST_MEIJIN "\n", "=\n\n");
    ck_assert_int_eq(e.game.num_moves, 210);
    ck_assert_int_eq(e.game.board.last_move, go_point_from_gtp(19, "C19"));
    expect(&e, "loadsgf " TEST_MEIJIN " 0\nloadsgf " TEST_MEIJIN " x\nloadsgf\n",
           "? syntax error\n\n? syntax error\n\n? syntax error\n\n");
    char *got = test_gtp_feed(&e, "loadsgf /nonexistent/file.sgf\n", true);
    ck_assert_msg(!strncmp(got, "? cannot load file: ", 20), "%s", got);
    free(got);
    got = test_gtp_feed(&e, "loadsgf " DATA_GTP "/session.gtp\n", true);
    ck_assert_msg(!strncmp(got, "? cannot load file: ", 20), "%s", got);
    free(got);
    ck_assert_int_eq(e.game.num_moves, 210);

    /* Setup stones and PL; without KM the engine's komi stays. */
    expect(&e, "komi 3.5\nloadsgf " DATA_GTP "/setup-no-komi.sgf 3\n", "=\n\n=\n\n");
    ck_assert(e.game.komi == 3.5f);
    ck_assert_int_eq(e.game.num_moves, 2);
    ck_assert_int_eq(e.game.moves[0].color, GO_WHITE);
    ck_assert_int_eq(e.game.board.num_empty, 81 - 5);
    ck_assert_int_eq(e.game.setup.color[go_point_from_gtp(9, "E5")], GO_WHITE);
    expect(&e, "undo\nundo\nundo\n", "=\n\n=\n\n? cannot undo\n\n");
    ck_assert_int_eq(e.game.board.num_empty, 81 - 3);

    e.allow_files = false;
    expect(&e, "loadsgf " TEST_MEIJIN "\n", "? cannot load file: file access is disabled\n\n");
    gtp_engine_free(&e);
}
END_TEST

/* The game that an SGF text describes, through go/sgf. */
static void game_from_sgf(const char *sgf, go_game *g)
{
    char err[256];
    go_sgf_collection *c = go_sgf_parse(sgf, strlen(sgf), err, sizeof err);
    ck_assert_msg(c != NULL, "%s", err);
    ck_assert_int_eq(c->num_games, 1);
    ck_assert_msg(go_sgf_to_game(c->games[0], -1, g, err, sizeof err), "%s", err);
    go_sgf_free(c);
}

static void assert_same_game(const go_game *a, const go_game *b)
{
    ck_assert_int_eq(a->board.size, b->board.size);
    ck_assert(a->komi == b->komi);
    ck_assert_int_eq(a->handicap, b->handicap);
    ck_assert_int_eq(a->num_moves, b->num_moves);
    for (int i = 0; i < a->num_moves; i++) {
        ck_assert_int_eq(a->moves[i].color, b->moves[i].color);
        ck_assert_int_eq(a->moves[i].point, b->moves[i].point);
    }
    ck_assert(!memcmp(a->setup.color, b->setup.color, sizeof a->setup.color));
    ck_assert(!memcmp(a->board.color, b->board.color, sizeof a->board.color));
    ck_assert_int_eq(a->board.to_move, b->board.to_move);
    char ra[256], rb[256];
    go_rules_to_json(&a->rules, ra, sizeof ra);
    go_rules_to_json(&b->rules, rb, sizeof rb);
    ck_assert_str_eq(ra, rb);
}

START_TEST(test_printsgf_round_trip)
{
    gtp_engine e;
    engine_up(&e);
    expect(&e,
           "boardsize 9\nkomi 0.5\nkata-set-rules chinese\nfixed_handicap 2\nplay w c6\n"
           "play b d6\nplay w b5\nplay b c5\nplay w pass\nplay b b6\nplay b c7\n",
           "=\n\n=\n\n=\n\n= C3 G7\n\n=\n\n=\n\n=\n\n=\n\n=\n\n=\n\n=\n\n");
    ck_assert_int_eq(e.game.board.captures[GO_BLACK], 1);
    char *sgf = answer(&e, "printsgf");
    ck_assert_msg(strstr(sgf, "SZ[9]") && strstr(sgf, "HA[2]") && strstr(sgf, "KM[0.5]"), "%s",
                  sgf);
    go_game g;
    game_from_sgf(sgf, &g);
    assert_same_game(&e.game, &g);
    go_game_free(&g);
    free(sgf);

    /* Through a file, and back into a second engine with loadsgf. */
    char path[] = "/tmp/shido-test-gtp-XXXXXX";
    int fd = mkstemp(path);
    ck_assert_int_ge(fd, 0);
    close(fd);
    char cmd[128];
    snprintf(cmd, sizeof cmd, "printsgf %s\n", path);
    expect(&e, cmd, "=\n\n");
    gtp_engine other;
    engine_up(&other);
    snprintf(cmd, sizeof cmd, "loadsgf %s\n", path);
    expect(&other, cmd, "=\n\n");
    assert_same_game(&e.game, &other.game);
    gtp_engine_free(&other);
    unlink(path);

    /* "-" is standard output (KataGo), not a file named "-" */
    char *dash = answer(&e, "printsgf -");
    ck_assert_msg(!strncmp(dash, "(;", 2) && strstr(dash, "SZ[9]"), "%s", dash);
    ck_assert_int_ne(access("-", F_OK), 0);
    free(dash);
    expect(&e, "printsgf /nonexistent/dir/x.sgf\nprintsgf a b\n",
           "? cannot save file: /nonexistent/dir/x.sgf: No such file or directory\n\n"
           "? syntax error\n\n");
    e.allow_files = false;
    expect(&e, "printsgf /tmp/never.sgf\n", "? cannot save file: file access is disabled\n\n");
    dash = answer(&e, "printsgf -");
    ck_assert_ptr_nonnull(strstr(dash, "SZ[9]"));
    free(dash);
    sgf = answer(&e, "printsgf");
    ck_assert_ptr_nonnull(strstr(sgf, ";W[]"));
    free(sgf);
    gtp_engine_free(&e);
}
END_TEST

START_TEST(test_final_score)
{
    gtp_engine e;
    engine_up(&e);
    expect(&e, "boardsize 9\nfinal_score\nkomi 0\nfinal_score\nkomi 0.5\nfinal_score\n",
           "=\n\n= W+7.5\n\n=\n\n= 0\n\n=\n\n= W+0.5\n\n");
    expect(&e, "komi 7.5\nplay b e5\nfinal_score\nplay w d5\nfinal_score\n",
           "=\n\n=\n\n= B+73.5\n\n=\n\n= W+7.5\n\n");
    expect(&e, "set_position b a2 b b1 b b2 w c1 w c2 w c3 w b3 w a3\nkomi -1\nfinal_score\n",
           "=\n\n=\n\n= W+72\n\n");
    /* Without a network every stone is alive: one chain per line, top row first. */
    expect(&e, "final_status_list dead\nfinal_status_list seki\nfinal_status_list alive\n",
           "=\n\n=\n\n= A3 B3 C3 C2 C1\nA2 B2 B1\n\n");
    expect(&e, "final_status_list frozen\n", "? syntax error\n\n");
    gtp_engine_free(&e);
}
END_TEST

START_TEST(test_kata_rules)
{
    gtp_engine e;
    engine_up(&e);
    expect(&e, "kata-get-rules\n",
           "= {\"friendlyPassOk\":false,\"hasButton\":false,\"ko\":\"POSITIONAL\",\"scoring\":"
           "\"AREA\",\"suicide\":true,\"tax\":\"NONE\",\"whiteHandicapBonus\":\"0\"}\n\n");
    expect(&e, "kata-set-rules japanese\nkata-get-rules\n",
           "=\n\n= {\"friendlyPassOk\":false,\"hasButton\":false,\"ko\":\"SIMPLE\",\"scoring\":"
           "\"TERRITORY\",\"suicide\":false,\"tax\":\"SEKI\",\"whiteHandicapBonus\":\"0\"}\n\n");
    /* JSON with spaces and a tab inside; missing fields keep their values. */
    expect(&e,
           "kata-set-rules { \"ko\" : \"SITUATIONAL\",\t\"scoring\":\"AREA\", \"suicide\": true }\n"
           "kata-get-rules\n",
           "=\n\n= {\"friendlyPassOk\":false,\"hasButton\":false,\"ko\":\"SITUATIONAL\",\"scoring\":"
           "\"AREA\",\"suicide\":true,\"tax\":\"SEKI\",\"whiteHandicapBonus\":\"0\"}\n\n");
    char before[256], after[256];
    go_rules_to_json(&e.game.rules, before, sizeof before);
    expect(&e, "kata-set-rules {\"ko\":\"SIMPLE\"\nkata-set-rules {\"ko\":\"NONSENSE\"}\n"
               "kata-set-rules klingon\nkata-set-rules\n",
           "? malformed rules JSON near ''\n\n"
           "? unknown rules field or value: ko = NONSENSE\n\n"
           "? unknown rules 'klingon'\n\n? syntax error\n\n");
    go_rules_to_json(&e.game.rules, after, sizeof after);
    ck_assert_str_eq(before, after);
    expect(&e, "kata-set-rule ko SIMPLE\nkata-set-rule whiteHandicapBonus N-1\n"
               "kata-set-rule hasButton maybe\nkata-set-rule color blue\nkata-set-rule ko\n",
           "=\n\n=\n\n? unknown rules field or value\n\n? unknown rules field or value\n\n"
           "? syntax error\n\n");
    ck_assert_int_eq(e.game.rules.ko, GO_KO_SIMPLE);
    ck_assert_int_eq(e.game.rules.white_handicap_bonus, GO_WHB_N_MINUS_ONE);
    expect(&e, "kata-set-rules tromp-taylor\n", "=\n\n");
    ck_assert_str_eq(go_rules_name(&e.game.rules), "tromp-taylor");
    /* KGS's kgs-rules */
    expect(&e, "kgs-rules japanese\n", "=\n\n");
    ck_assert_str_eq(go_rules_name(&e.game.rules), "japanese");
    expect(&e, "kgs-rules new_zealand\nkgs-rules chess\n",
           "=\n\n? unknown rules (japanese, chinese, aga or new_zealand)\n\n");
    ck_assert_str_eq(go_rules_name(&e.game.rules), "new-zealand");
    gtp_engine_free(&e);
}
END_TEST

/* White's straight three in the corner of a 9x9 board (A9, B9, C9 its eye space), black to
 * kill at B9; a black move elsewhere lets white live at B9. */
#define STRAIGHT_THREE "boardsize 9\nset_position w D9 w A8 w B8 w C8 w D8 b E9 b E8 b E7 b A6 " \
                       "b B6 b C6 b D6 b E6\n"

START_TEST(test_tsumego_solve)
{
    gtp_engine e;
    engine_up(&e);
    expect(&e, "tsumego_solve\n",
           "? not a tsumego: empty board: there is no problem to solve\n\n");
    expect(&e, STRAIGHT_THREE, "=\n\n=\n\n");
    expect(&e, "tsumego_solve b 5\ntsumego_solve 5 live white\n",
           "= black kill success B9\n\n= white live success B9\n\n");
    /* by default the side to move: white after black A9 */
    expect(&e, "play b A9\ntsumego_solve 5\n", "=\n\n= white live success B9\n\n");
    const char *bad[] = {"tsumego_solve kill kill", "tsumego_solve 0", "tsumego_solve b w",
                         "tsumego_solve 1e9", "tsumego_solve nan", "tsumego_solve b kill 1 2",
                         "tsumego_solve frobnicate"};
    for (int i = 0; i < (int)(sizeof bad / sizeof bad[0]); i++) {
        char *got = test_gtp_feed(&e, bad[i], true);
        ck_assert_msg(!strncmp(got, "? syntax error", 14) || !strncmp(got, "? wrong number", 14),
                      "%s: %s", bad[i], got);
        free(got);
    }
    ck_assert_int_eq(e.game.num_moves, 1); /* the questions played nothing */
    gtp_engine_free(&e);
}
END_TEST

/* --tsumego: genmove answers with the solver, without a network; settled problems pass, a
 * position that is no problem is an error without a network to search with. */
START_TEST(test_tsumego_genmove)
{
    gtp_engine e;
    engine_up(&e);
    expect(&e, "known_command genmove\n", "= false\n\n");
    char err[256];
    char *bad[] = {"gtp", "--tsumego=0"}, *nan[] = {"gtp", "--tsumego=x"},
         *on[] = {"gtp", "--tsumego=5"};
    ck_assert_int_eq(gtp_engine_configure(&e, 2, bad, err, sizeof err), 2);
    ck_assert_int_eq(gtp_engine_configure(&e, 2, nan, err, sizeof err), 2);
    ck_assert_msg(strstr(err, "--tsumego=S"), "%s", err);
    ck_assert_int_eq(gtp_engine_configure(&e, 2, on, err, sizeof err), 0);
    ck_assert(e.tsumego_s == 5.0);
    expect(&e, "known_command genmove\n", "= true\n\n");
    char *list = answer(&e, "list_commands");
    ck_assert_msg(strstr(list, "\ngenmove\n"), "%s", list);
    free(list);
    expect(&e, "genmove b\n",
           "? not a tsumego: empty board: there is no problem to solve (and no network to search "
           "with)\n\n");
    expect(&e, STRAIGHT_THREE "play b A9\ngenmove w\n", "=\n\n=\n\n=\n\n= B9\n\n");
    ck_assert_int_eq(e.game.board.color[go_point_from_gtp(9, "B9")], GO_WHITE);
    ck_assert_int_eq(e.game.board.color[go_point_from_gtp(9, "A9")], GO_EMPTY); /* captured */
    /* white now lives unconditionally: nothing is left to play for */
    expect(&e, "genmove b\n", "= pass\n\n");
    ck_assert_int_eq(e.game.num_moves, 3);
    ck_assert_int_eq(e.game.board.to_move, GO_WHITE);
    /* the killing move when it is the solver's turn to attack */
    expect(&e, STRAIGHT_THREE "genmove b\n", "=\n\n=\n\n= B9\n\n");
    gtp_engine_free(&e);
}
END_TEST

START_TEST(test_set_position)
{
    gtp_engine e;
    engine_up(&e);
    expect(&e, "boardsize 9\nplay b e5\nset_position b d4 w e4 B c3\n", "=\n\n=\n\n=\n\n");
    ck_assert_int_eq(e.game.num_moves, 0);
    ck_assert_int_eq(e.game.handicap, 0);
    ck_assert_int_eq(e.game.board.num_empty, 78);
    ck_assert_int_eq(e.game.board.color[go_point_from_gtp(9, "E4")], GO_WHITE);
    ck_assert_int_eq(e.game.board.color[go_point_from_gtp(9, "E5")], GO_EMPTY);
    expect(&e, "undo\n", "? cannot undo\n\n");
    /* Any error leaves the position as it was. */
    expect(&e,
           "set_position b d4 w\nset_position x d4\nset_position b d4 w d4\nset_position b pass\n"
           "set_position b j10\nset_position b a1 w a2 w b1\nset_position b zz\n",
           "? syntax error\n\n? syntax error\n\n? illegal stone placement\n\n"
           "? illegal stone placement\n\n? illegal stone placement\n\n"
           "? illegal stone placement\n\n? syntax error\n\n");
    ck_assert_int_eq(e.game.board.num_empty, 78);
    expect(&e, "play w c4\nset_position\n", "=\n\n=\n\n");
    ck_assert_int_eq(e.game.board.num_empty, 81);
    ck_assert_int_eq(e.game.num_moves, 0);
    gtp_engine_free(&e);
}
END_TEST

START_TEST(test_time_commands)
{
    gtp_engine e;
    engine_up(&e);
    const go_time_control *t = &e.time.control;
    expect(&e, "time_settings 300 30 5\ntime_left b 120 0\ntime_left white 25.5 3\n",
           "=\n\n=\n\n=\n\n");
    ck_assert_int_eq(t->system, GO_TIME_CANADIAN);
    ck_assert(t->main_time_s == 300 && t->period_time_s == 30);
    ck_assert_int_eq(t->period_stones, 5);
    ck_assert(e.time.reported[GO_BLACK] && e.time.clock[GO_BLACK].time_left_s == 120);
    ck_assert(!e.time.clock[GO_BLACK].overtime);
    ck_assert(e.time.clock[GO_WHITE].time_left_s == 25.5 && e.time.clock[GO_WHITE].overtime &&
              e.time.clock[GO_WHITE].stones_left == 3);
    expect(&e, "time_settings 600 0 0\n", "=\n\n");
    ck_assert_int_eq(t->system, GO_TIME_ABSOLUTE);
    /* a new clock: both players start it afresh */
    ck_assert(!e.time.reported[GO_BLACK] && e.time.clock[GO_BLACK].time_left_s == 600);
    expect(&e, "time_settings 0 1 0\n", "=\n\n");
    ck_assert_int_eq(t->system, GO_TIME_NONE);
    expect(&e, "time_settings -1 30 5\ntime_settings 1 2\ntime_settings a b c\n"
               "time_settings 1 2 -3\ntime_left x 1 0\ntime_left b 1 -1\ntime_left b nan 0\n",
           "? syntax error\n\n? syntax error\n\n? syntax error\n\n? syntax error\n\n"
           "? syntax error\n\n? syntax error\n\n? syntax error\n\n");
    expect(&e, "kgs-time_settings byoyomi 600 30 5\n", "=\n\n");
    ck_assert_int_eq(t->system, GO_TIME_BYOYOMI);
    ck_assert_int_eq(t->periods, 5);
    expect(&e, "kgs-time_settings canadian 300 300 25\n", "=\n\n");
    ck_assert_int_eq(t->system, GO_TIME_CANADIAN);
    ck_assert_int_eq(t->period_stones, 25);
    expect(&e, "kgs-time_settings absolute 900\nkgs-time_settings none\n", "=\n\n=\n\n");
    ck_assert_int_eq(t->system, GO_TIME_NONE);
    /* Fischer is KataGo's, not KGS's */
    expect(&e,
           "kgs-time_settings none 5\nkgs-time_settings absolute\nkgs-time_settings byoyomi 1 2\n"
           "kgs-time_settings canadian 1 2 x\nkgs-time_settings fischer 1 2\nkgs-time_settings\n",
           "? syntax error\n\n? syntax error\n\n? syntax error\n\n? syntax error\n\n"
           "? syntax error\n\n? syntax error\n\n");
    expect(&e, "kata-list_time_settings\nkata-time_settings byoyomi 60 10 3\n",
           "= none\nabsolute\nbyoyomi\ncanadian\nfischer\nfischer-capped\n\n=\n\n");
    ck_assert_int_eq(t->system, GO_TIME_BYOYOMI);
    ck_assert_int_eq(t->periods, 3);
    expect(&e, "kata-time_settings fischer 60 5\n", "=\n\n");
    ck_assert_int_eq(t->system, GO_TIME_FISCHER);
    ck_assert(t->main_time_s == 60 && t->increment_s == 5 && t->main_cap_s == 0);
    expect(&e, "kata-time_settings fischer-capped 60 5 120 -1\n", "=\n\n");
    ck_assert(t->main_cap_s == 120 && t->move_cap_s < 0);
    ck_assert_str_eq(go_time_system_name(t), "fischer-capped");
    /* KataGo's rules for the caps: a main cap below the main time, a zero move cap, and the
     * wrong number of values are refused and leave the clock as it was */
    expect(&e,
           "kata-time_settings fischer-capped 60 5 30 -1\nkata-time_settings fischer-capped 60 5 "
           "-1 0\nkata-time_settings fischer 60\nkata-time_settings fischer-capped 60 5 -1\n",
           "? the main time limit must be at least the main time\n\n"
           "? the time a move may take must be positive (negative: no limit)\n\n"
           "? syntax error\n\n? syntax error\n\n");
    ck_assert(t->main_cap_s == 120);
    expect(&e, "kata-time_settings absolute 30\n", "=\n\n");
    ck_assert_int_eq(t->system, GO_TIME_ABSOLUTE);
    gtp_engine_free(&e);
}
END_TEST

START_TEST(test_garbage_and_binary)
{
    gtp_engine e;
    engine_up(&e);
    /* Control characters vanish (so "na\x01me" is "name"); bytes above 127 are kept. */
    expect(&e, "na\x01me\n\x7f\x1b\n\xff\xfe\x80\n=\n?\n= 1\nplay \xc3\xa9 d4\n\x02\x03 17\n",
           "= shido\n\n? unknown command\n\n? unknown command\n\n? unknown command\n\n"
           "? unknown command\n\n? syntax error\n\n?17 unknown command\n\n");
    /* Over-long lines, in-process and through the reader, which must not keep them. */
    size_t big = GTP_MAX_LINE + 10;
    char *line = malloc(big + 1);
    memset(line, 'x', big);
    line[big] = 0;
    expect(&e, line, "? line too long\n\n");
    memcpy(line, "known_command ", 14);
    line[GTP_MAX_LINE] = 0;
    expect(&e, line, "= false\n\n");
    free(line);

    size_t n = 3 * GTP_MAX_LINE + 64;
    char *input = malloc(n);
    size_t k = 0;
    k += (size_t)sprintf(input + k, "1 name\n");
    memset(input + k, 'y', 3 * GTP_MAX_LINE);
    k += 3 * GTP_MAX_LINE;
    k += (size_t)sprintf(input + k, "\n2 name\nna");
    input[k++] = 0; /* a NUL inside a line is a control character like any other */
    k += (size_t)sprintf(input + k, "me\n\n3 version");
    int rc;
    char *got = run_bytes(&e, input, k, &rc);
    ck_assert_int_eq(rc, 0);
    ck_assert_str_eq(got, "=1 shido\n\n? line too long\n\n=2 shido\n\n= shido\n\n=3 0.17 (Leela Zero GTP level; shido 0.1.0)\n\n");
    free(got);
    free(input);
    gtp_engine_free(&e);
}
END_TEST

/* Random bytes never stop the engine nor break the board. */
START_TEST(test_random_lines)
{
    gtp_engine e;
    engine_up(&e);
    static const char *words[] = {"play", "b", "w", "d4", "pass", "undo", "boardsize", "9", "3",
                                  "set_position", "place_free_handicap", "fixed_handicap", "komi",
                                  "clear_board", "kata-set-rules", "{", "}", "\"ko\"", ":",
                                  "set_free_handicap", "a1", "c3", "showboard", "printsgf", "#"};
    uint64_t rng = 12345;
    FILE *null = fopen("/dev/null", "w");
    e.allow_files = false;
    for (int i = 0; i < 20000; i++) {
        char line[256] = "";
        int nw = 1 + (int)(go_rand_next(&rng) % 6);
        for (int w = 0; w < nw; w++) {
            strcat(line, words[go_rand_next(&rng) % (sizeof words / sizeof words[0])]);
            strcat(line, go_rand_next(&rng) % 8 ? " " : "\t");
        }
        ck_assert(gtp_engine_handle_line(&e, line, null));
        test_assert_sound(&e.game.board);
    }
    fclose(null);
    gtp_engine_free(&e);
}
END_TEST

/* Runs `shido subcommand` to its end in the data folder (so relative paths in scripts resolve
 * there) with stdin from in_path: its stdout, stderr (both malloc'd) and wait status. */
static char *run_shido(const char *subcommand, const char *in_path, char **err, int *status)
{
    const char *args[] = {subcommand, NULL};
    return pipe_run(args, in_path, DATA_GTP, err, status);
}

/* The real binary, stdin from a script that ends without quit: the transcript is exact, stderr
 * holds nothing a GUI could take for a reply, and end of input exits with status 0. */
START_TEST(test_binary_over_pipe)
{
    char *err;
    int status;
    char *out = run_shido("gtp", DATA_GTP "/session.gtp", &err, &status);
    ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0, "status %d", status);
    char *want = test_read_file(DATA_GTP "/session.out", NULL);
    ck_assert_str_eq(out, want);
    pipe_assert_no_protocol_lines(err);
    free(want);
    free(out);
    free(err);
}
END_TEST

/* Every subcommand prints its usage on standard output and exits 0 on --help, nothing on
 * standard error; every option of gtp's and analysis' usage lines, and every subcommand of the
 * top-level text, appears in README.md. */
START_TEST(test_help_binary)
{
    static const char *const subs[][2] = {
        {"gtp", NULL}, {"analysis", NULL}, {"demo", NULL}, {"bench", NULL},
        {"bench", "board"}, {"bench", "nn"}, {"bench", "train"}, {"match", NULL},
        {"tsumego", NULL}, {"tsumego-gen", NULL}, {"train-discriminator", NULL},
        {"tsumego", "solve"}, {"tsumego", "bench"}, {"tactical-maps", NULL},
        {"tactical-maps", "characterise"}, {"teach-stats", NULL}, {"features", NULL},
        {"fuseki-quiz", NULL}, {"fuseki-quiz", "merge"}, {"fuseki-quiz", "stats"},
        {"review", NULL}, {"cuda-info", NULL}};
    char *readme = test_read_file(SHIDO_SOURCE_DIR "/README.md", NULL);
    for (size_t k = 0; k < sizeof subs / sizeof subs[0]; k++) {
        const char *args[] = {subs[k][0], subs[k][1] ? subs[k][1] : "--help",
                              subs[k][1] ? "--help" : NULL, NULL};
        char *err;
        int status;
        char *out = pipe_run(args, "/dev/null", NULL, &err, &status);
        ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0, "%s %s --help: status %d",
                      subs[k][0], subs[k][1] ? subs[k][1] : "", status);
        char want[64];
        snprintf(want, sizeof want, "usage: shido %s", subs[k][0]);
        ck_assert_msg(!strncmp(out, want, strlen(want)), "%s --help: %s", subs[k][0], out);
        ck_assert_msg(!*err, "%s --help wrote to stderr: %s", subs[k][0], err);
        snprintf(want, sizeof want, "build/shido %s", subs[k][0]);
        ck_assert_msg(strstr(readme, want), "README.md lacks %s", want);
        if (!subs[k][1] && (!strcmp(subs[k][0], "gtp") || !strcmp(subs[k][0], "analysis"))) {
            out[strcspn(out, "\n")] = 0;
            for (char *o = strstr(out, "-"); o; o = strstr(o + 1, " -")) {
                char opt[32];
                if (sscanf(o[0] == ' ' ? o + 1 : o, "%31[-a-z]", opt) == 1 && strlen(opt) > 1)
                    ck_assert_msg(strstr(readme, opt), "README.md lacks %s of %s", opt,
                                  subs[k][0]);
            }
        }
        free(out);
        free(err);
    }
    free(readme);
}
END_TEST

/* A test that skips (test_skip) makes its suite exit with ctest's skip code, the reason printed
 * once with what did not run; a failure wins over a skip; a clean suite exits 0. */
START_TEST(inner_skip_a) { test_skip("no frobnicator present", "test a"); }
END_TEST
START_TEST(inner_skip_b) { test_skip("no frobnicator present", "test b"); }
END_TEST
START_TEST(inner_fail) { ck_abort_msg("a real failure"); }
END_TEST
START_TEST(inner_pass) { ck_assert(1); }
END_TEST

static int suite_status(const TTest *const *tests, int n, char **out)
{
    int fds[2];
    ck_assert_int_eq(pipe(fds), 0);
    fflush(stdout);
    pid_t pid = fork();
    ck_assert_int_ge(pid, 0);
    if (pid == 0) {
        close(fds[0]);
        dup2(fds[1], 1);
        Suite *s = suite_create("inner");
        TCase *tc = tcase_create("inner");
        for (int k = 0; k < n; k++)
            tcase_add_test(tc, tests[k]);
        suite_add_tcase(s, tc);
        int rc = test_run_suite(s);
        fflush(stdout);
        _exit(rc);
    }
    close(fds[1]);
    *out = pipe_read_fd(fds[0]);
    close(fds[0]);
    int status;
    ck_assert_int_eq(waitpid(pid, &status, 0), pid);
    ck_assert(WIFEXITED(status));
    return WEXITSTATUS(status);
}

START_TEST(test_suite_skip_status)
{
    char *out;
    const TTest *skip2[] = {inner_skip_a, inner_pass, inner_skip_b};
    ck_assert_int_eq(suite_status(skip2, 3, &out), TEST_SKIP_CODE);
    ck_assert_msg(strstr(out, "SKIP: no frobnicator present; 2 did not run: test a, test b\n"),
                  "%s", out);
    ck_assert_ptr_null(strstr(strstr(out, "SKIP:") + 1, "SKIP:"));   /* once */
    free(out);
    const TTest *fail[] = {inner_skip_a, inner_fail};
    ck_assert_int_eq(suite_status(fail, 2, &out), EXIT_FAILURE);
    free(out);
    const TTest *clean[] = {inner_pass, inner_pass};
    ck_assert_int_eq(suite_status(clean, 2, &out), EXIT_SUCCESS);
    ck_assert_ptr_null(strstr(out, "SKIP"));
    free(out);
}
END_TEST

/* `shido demo` exits cleanly and prints the same game every time. */
START_TEST(test_demo_binary)
{
    char *err[2], *out[2];
    for (int i = 0; i < 2; i++) {
        int status;
        out[i] = run_shido("demo", "/dev/null", &err[i], &status);
        ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0, "status %d", status);
        ck_assert_str_eq(err[i], "");
    }
    ck_assert_str_eq(out[0], out[1]);
    ck_assert_ptr_nonnull(strstr(out[0], "    A B C D E F G H J\n 9 "));
    ck_assert_ptr_nonnull(strstr(out[0], "Tromp-Taylor score, komi 7.5: "));
    for (int i = 0; i < 2; i++) {
        free(out[i]);
        free(err[i]);
    }
}
END_TEST

Suite *gtp_suite(void)
{
    Suite *s = suite_create("gtp");
    TCase *tc = tcase_create("protocol");
    tcase_add_test(tc, test_ids_and_admin);
    tcase_add_test(tc, test_quit_reply_and_run);
    tcase_add_test(tc, test_garbage_and_binary);
    tcase_add_test(tc, test_random_lines);
    tcase_add_test(tc, test_binary_over_pipe);
    tcase_add_test(tc, test_demo_binary);
    tcase_add_test(tc, test_help_binary);
    tcase_add_test(tc, test_suite_skip_status);
    suite_add_tcase(s, tc);
    tc = tcase_create("board");
    tcase_add_test(tc, test_boardsize_komi_clear);
    tcase_add_test(tc, test_rectangular_boards);
    tcase_add_test(tc, test_play);
    tcase_add_test(tc, test_showboard_and_undo_across_captures);
    tcase_add_test(tc, test_final_score);
    tcase_add_test(tc, test_set_position);
    tcase_add_test(tc, test_tsumego_solve);
    tcase_add_test(tc, test_tsumego_genmove);
    suite_add_tcase(s, tc);
    tc = tcase_create("handicap");
    tcase_add_test(tc, test_fixed_handicap_matches_gnugo);
    tcase_add_test(tc, test_fixed_handicap_errors);
    tcase_add_test(tc, test_place_free_handicap);
    tcase_add_test(tc, test_set_free_handicap);
    suite_add_tcase(s, tc);
    tc = tcase_create("files_rules_time");
    tcase_add_test(tc, test_loadsgf_meijin);
    tcase_add_test(tc, test_printsgf_round_trip);
    tcase_add_test(tc, test_kata_rules);
    tcase_add_test(tc, test_time_commands);
    suite_add_tcase(s, tc);
    return s;
}

int main(void) { return test_run_suite(gtp_suite()); }
