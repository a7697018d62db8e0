// Carry logic for AMD UltraScale and UltraScale+ (synth_xilinx -family xcup):
// yosys' +/xilinx/arith_map.v builds every adder, subtractor and comparator
// from CARRY4, the 7-series primitive; an UltraScale+ slice has one CARRY8,
// eight bits a cell (UG574, "Carry Logic"), and Vivado places a CARRY4 in
// one. This map is the same $alu/$lcu lowering onto CARRY8 (CARRY_TYPE
// SINGLE_CY8, the carry in on CI), so the mapped netlist has the cells and
// the carry-chain depth the part really has. hw/synth_run.py runs it in
// place of the library map for xcup; widths of 1..2 bits fall through to
// plain logic as in the library map.

(* techmap_celltype = "$lcu" *)
module _80_xcup_lcu (P, G, CI, CO);
	parameter WIDTH = 2;

	(* force_downto *)
	input [WIDTH-1:0] P, G;
	input CI;

	(* force_downto *)
	output [WIDTH-1:0] CO;

	wire _TECHMAP_FAIL_ = WIDTH <= 2;

	localparam CARRY8_COUNT = (WIDTH + 7) / 8;
	localparam MAX_WIDTH    = CARRY8_COUNT * 8;
	localparam PAD_WIDTH    = MAX_WIDTH - WIDTH;

	(* force_downto *)
	wire [MAX_WIDTH-1:0] S  = {{PAD_WIDTH{1'b0}}, P & ~G};
	(* force_downto *)
	wire [MAX_WIDTH-1:0] GG = {{PAD_WIDTH{1'b0}}, G};
	(* force_downto *)
	wire [MAX_WIDTH-1:0] C;
	assign CO = C[WIDTH-1:0];

	genvar i;
	generate for (i = 0; i < CARRY8_COUNT; i = i + 1) begin:slice
		CARRY8 #(.CARRY_TYPE("SINGLE_CY8")) carry8
		(
		.CI    (i == 0 ? CI : C[i*8 - 1]),
		.CI_TOP(1'b0),
		.DI    (GG[i*8 +: 8]),
		.S     (S [i*8 +: 8]),
		.CO    (C [i*8 +: 8])
		);
	end endgenerate
endmodule

(* techmap_celltype = "$alu" *)
module _80_xcup_alu (A, B, CI, BI, X, Y, CO);
	parameter A_SIGNED = 0;
	parameter B_SIGNED = 0;
	parameter A_WIDTH = 1;
	parameter B_WIDTH = 1;
	parameter Y_WIDTH = 1;

	(* force_downto *)
	input [A_WIDTH-1:0] A;
	(* force_downto *)
	input [B_WIDTH-1:0] B;
	(* force_downto *)
	output [Y_WIDTH-1:0] X, Y;

	input CI, BI;
	(* force_downto *)
	output [Y_WIDTH-1:0] CO;

	wire _TECHMAP_FAIL_ = Y_WIDTH <= 2;

	(* force_downto *)
	wire [Y_WIDTH-1:0] A_buf, B_buf;
	\$pos #(.A_SIGNED(A_SIGNED), .A_WIDTH(A_WIDTH), .Y_WIDTH(Y_WIDTH)) A_conv (.A(A), .Y(A_buf));
	\$pos #(.A_SIGNED(B_SIGNED), .A_WIDTH(B_WIDTH), .Y_WIDTH(Y_WIDTH)) B_conv (.A(B), .Y(B_buf));

	(* force_downto *)
	wire [Y_WIDTH-1:0] AA = A_buf;
	(* force_downto *)
	wire [Y_WIDTH-1:0] BB = BI ? ~B_buf : B_buf;

	localparam CARRY8_COUNT = (Y_WIDTH + 7) / 8;
	localparam MAX_WIDTH    = CARRY8_COUNT * 8;
	localparam PAD_WIDTH    = MAX_WIDTH - Y_WIDTH;

	(* force_downto *)
	wire [MAX_WIDTH-1:0] S  = {{PAD_WIDTH{1'b0}}, AA ^ BB};
	(* force_downto *)
	wire [MAX_WIDTH-1:0] DI = {{PAD_WIDTH{1'b0}}, AA};
	(* force_downto *)
	wire [MAX_WIDTH-1:0] O;
	(* force_downto *)
	wire [MAX_WIDTH-1:0] C;
	assign Y = O[Y_WIDTH-1:0], CO = C[Y_WIDTH-1:0];
	assign X = S[Y_WIDTH-1:0];

	genvar i;
	generate for (i = 0; i < CARRY8_COUNT; i = i + 1) begin:slice
		CARRY8 #(.CARRY_TYPE("SINGLE_CY8")) carry8
		(
		.CI    (i == 0 ? CI : C[i*8 - 1]),
		.CI_TOP(1'b0),
		.DI    (DI[i*8 +: 8]),
		.S     (S [i*8 +: 8]),
		.O     (O [i*8 +: 8]),
		.CO    (C [i*8 +: 8])
		);
	end endgenerate
endmodule
