// A Go client built from the code protoc generates out of proto/ (no extra flags): it lists
// the variants, then reads the ErrorReason of a failed call. tests/proto/test_codegen.py builds
// it with Debian's Go packages and runs it against a real server.
package main

import (
	"context"
	"fmt"
	"os"
	"time"

	beziquev1 "bezique.dev/gen/go/bezique/v1"
	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc"
	"google.golang.org/grpc/status"
)

func main() {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	conn, err := grpc.DialContext(ctx, os.Args[1], grpc.WithInsecure(), grpc.WithBlock())
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	defer conn.Close()
	client := beziquev1.NewTableServiceClient(conn)
	answer, err := client.ListVariants(ctx, &beziquev1.ListVariantsRequest{})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	for _, variant := range answer.GetVariants() {
		fmt.Println("variant", variant.GetId())
	}
	_, err = client.GetView(ctx, &beziquev1.GetViewRequest{TableId: "no-such-table"})
	for _, detail := range status.Convert(err).Details() {
		if info, ok := detail.(*errdetails.ErrorInfo); ok {
			reason := beziquev1.ErrorReason(beziquev1.ErrorReason_value["ERROR_REASON_"+info.GetReason()])
			fmt.Println("error", status.Code(err), reason)
		}
	}
}
