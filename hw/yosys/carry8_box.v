// CARRY8, the UltraScale+ carry cell, as a timing box for abc9 (read over
// the library's plain model before LUT mapping; hw/synth_run.py). Without
// the box the LUT mapper takes a carry cell's outputs as arriving at time
// zero and maps the logic after a compare for area, many levels deep. The
// delays are yosys' 7-series CARRY4 figures (cells_sim.v, from prjxray),
// two CARRY4 in series: the mapper needs the carry's depth relative to a
// LUT, not UltraScale+ picoseconds.
(* abc9_box, lib_whitebox *)
module CARRY8(
  (* abc9_carry *)
  output [7:0] CO,
  output [7:0] O,
  (* abc9_carry *)
  input        CI,
  input        CI_TOP,
  input  [7:0] DI, S
);
  parameter CARRY_TYPE = "SINGLE_CY8";
  wire CI4 = (CARRY_TYPE == "DUAL_CY4" ? CI_TOP : CO[3]);
  assign O = S ^ {CO[6:4], CI4, CO[2:0], CI};
  assign CO[0] = S[0] ? CI : DI[0];
  assign CO[1] = S[1] ? CO[0] : DI[1];
  assign CO[2] = S[2] ? CO[1] : DI[2];
  assign CO[3] = S[3] ? CO[2] : DI[3];
  assign CO[4] = S[4] ? CI4 : DI[4];
  assign CO[5] = S[5] ? CO[4] : DI[5];
  assign CO[6] = S[6] ? CO[5] : DI[6];
  assign CO[7] = S[7] ? CO[6] : DI[7];
  specify
    (CI => CO[0]) = 536;
    (DI[0] => CO[0]) = 379;
    (S[0] => CO[0]) = 340;
    (CI => CO[1]) = 494;
    (DI[0] => CO[1]) = 465;
    (DI[1] => CO[1]) = 445;
    (S[0] => CO[1]) = 433;
    (S[1] => CO[1]) = 469;
    (CI => CO[2]) = 592;
    (DI[0] => CO[2]) = 540;
    (DI[1] => CO[2]) = 520;
    (DI[2] => CO[2]) = 356;
    (S[0] => CO[2]) = 512;
    (S[1] => CO[2]) = 548;
    (S[2] => CO[2]) = 292;
    (CI => CO[3]) = 580;
    (DI[0] => CO[3]) = 526;
    (DI[1] => CO[3]) = 507;
    (DI[2] => CO[3]) = 398;
    (DI[3] => CO[3]) = 385;
    (S[0] => CO[3]) = 508;
    (S[1] => CO[3]) = 528;
    (S[2] => CO[3]) = 378;
    (S[3] => CO[3]) = 380;
    (CI => CO[4]) = 851;
    (DI[0] => CO[4]) = 797;
    (DI[1] => CO[4]) = 778;
    (DI[2] => CO[4]) = 669;
    (DI[3] => CO[4]) = 656;
    (DI[4] => CO[4]) = 379;
    (S[0] => CO[4]) = 779;
    (S[1] => CO[4]) = 799;
    (S[2] => CO[4]) = 649;
    (S[3] => CO[4]) = 651;
    (S[4] => CO[4]) = 340;
    (CI => CO[5]) = 737;
    (DI[0] => CO[5]) = 683;
    (DI[1] => CO[5]) = 664;
    (DI[2] => CO[5]) = 555;
    (DI[3] => CO[5]) = 542;
    (DI[4] => CO[5]) = 465;
    (DI[5] => CO[5]) = 445;
    (S[0] => CO[5]) = 665;
    (S[1] => CO[5]) = 685;
    (S[2] => CO[5]) = 535;
    (S[3] => CO[5]) = 537;
    (S[4] => CO[5]) = 433;
    (S[5] => CO[5]) = 469;
    (CI => CO[6]) = 808;
    (DI[0] => CO[6]) = 754;
    (DI[1] => CO[6]) = 735;
    (DI[2] => CO[6]) = 626;
    (DI[3] => CO[6]) = 613;
    (DI[4] => CO[6]) = 540;
    (DI[5] => CO[6]) = 520;
    (DI[6] => CO[6]) = 356;
    (S[0] => CO[6]) = 736;
    (S[1] => CO[6]) = 756;
    (S[2] => CO[6]) = 606;
    (S[3] => CO[6]) = 608;
    (S[4] => CO[6]) = 512;
    (S[5] => CO[6]) = 548;
    (S[6] => CO[6]) = 292;
    (CI => CO[7]) = 694;
    (DI[0] => CO[7]) = 640;
    (DI[1] => CO[7]) = 621;
    (DI[2] => CO[7]) = 512;
    (DI[3] => CO[7]) = 499;
    (DI[4] => CO[7]) = 526;
    (DI[5] => CO[7]) = 507;
    (DI[6] => CO[7]) = 398;
    (DI[7] => CO[7]) = 385;
    (S[0] => CO[7]) = 622;
    (S[1] => CO[7]) = 642;
    (S[2] => CO[7]) = 492;
    (S[3] => CO[7]) = 494;
    (S[4] => CO[7]) = 508;
    (S[5] => CO[7]) = 528;
    (S[6] => CO[7]) = 378;
    (S[7] => CO[7]) = 380;
    (CI => O[0]) = 482;
    (S[0] => O[0]) = 223;
    (CI => O[1]) = 598;
    (DI[0] => O[1]) = 407;
    (S[0] => O[1]) = 400;
    (S[1] => O[1]) = 205;
    (CI => O[2]) = 584;
    (DI[0] => O[2]) = 556;
    (DI[1] => O[2]) = 537;
    (S[0] => O[2]) = 523;
    (S[1] => O[2]) = 558;
    (S[2] => O[2]) = 226;
    (CI => O[3]) = 642;
    (DI[0] => O[3]) = 615;
    (DI[1] => O[3]) = 596;
    (DI[2] => O[3]) = 438;
    (S[0] => O[3]) = 582;
    (S[1] => O[3]) = 618;
    (S[2] => O[3]) = 330;
    (S[3] => O[3]) = 227;
    (CI => O[4]) = 802;
    (DI[0] => O[4]) = 748;
    (DI[1] => O[4]) = 729;
    (DI[2] => O[4]) = 620;
    (DI[3] => O[4]) = 607;
    (S[0] => O[4]) = 730;
    (S[1] => O[4]) = 750;
    (S[2] => O[4]) = 600;
    (S[3] => O[4]) = 602;
    (S[4] => O[4]) = 223;
    (CI => O[5]) = 914;
    (DI[0] => O[5]) = 860;
    (DI[1] => O[5]) = 841;
    (DI[2] => O[5]) = 732;
    (DI[3] => O[5]) = 719;
    (DI[4] => O[5]) = 407;
    (S[0] => O[5]) = 842;
    (S[1] => O[5]) = 862;
    (S[2] => O[5]) = 712;
    (S[3] => O[5]) = 714;
    (S[4] => O[5]) = 400;
    (S[5] => O[5]) = 205;
    (CI => O[6]) = 819;
    (DI[0] => O[6]) = 765;
    (DI[1] => O[6]) = 746;
    (DI[2] => O[6]) = 637;
    (DI[3] => O[6]) = 624;
    (DI[4] => O[6]) = 556;
    (DI[5] => O[6]) = 537;
    (S[0] => O[6]) = 747;
    (S[1] => O[6]) = 767;
    (S[2] => O[6]) = 617;
    (S[3] => O[6]) = 619;
    (S[4] => O[6]) = 523;
    (S[5] => O[6]) = 558;
    (S[6] => O[6]) = 226;
    (CI => O[7]) = 893;
    (DI[0] => O[7]) = 839;
    (DI[1] => O[7]) = 820;
    (DI[2] => O[7]) = 711;
    (DI[3] => O[7]) = 698;
    (DI[4] => O[7]) = 615;
    (DI[5] => O[7]) = 596;
    (DI[6] => O[7]) = 438;
    (S[0] => O[7]) = 821;
    (S[1] => O[7]) = 841;
    (S[2] => O[7]) = 691;
    (S[3] => O[7]) = 693;
    (S[4] => O[7]) = 582;
    (S[5] => O[7]) = 618;
    (S[6] => O[7]) = 330;
    (S[7] => O[7]) = 227;
  endspecify
endmodule
