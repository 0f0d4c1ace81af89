package fileid_test

import (
	"context"
	"errors"
	"fmt"
	"log"
	"testing/fstest"

	"github.com/agentfiles/agentfiles"
	"github.com/agentfiles/agentfiles/fileid"
)

// docs returns the roots of the examples: two directories with a README.md each.
func docs() []fileid.Root {
	primary := fstest.MapFS{
		"guide.md":  {Data: []byte("---\ntitle: User Guide\n---\nRead this first.\n\n# Install\n\n```sh\n# not a heading\ngo install example.com/tool@latest\n```\n\n## Linux\n\nUse the package.\n\n# Configure\n\nSet TOOL_HOME.\n")},
		"README.md": {Data: []byte("# Tool\n\nA tool.\n")},
	}
	secondary := fstest.MapFS{
		"README.md": {Data: []byte("Plugins\n=======\n\nInstall plugins with `tool add`.\n")},
	}
	return []fileid.Root{{Label: "/primary", FS: primary}, {Label: "/secondary", FS: secondary}}
}

func ExampleNew() {
	reg, err := fileid.New(context.Background(), docs(), fileid.Options{})
	if err != nil {
		log.Fatal(err)
	}
	for _, f := range reg.Files() {
		fmt.Printf("%s %-10s %-9s %q %s\n", f.FileID, f.SourceDirectory, f.Filename, f.Title, f.Size)
	}
	// Output:
	// f1 /primary   guide.md  "User Guide" 173b
	// f2 /primary   README.md "Tool" 16b
	// f3 /secondary README.md "Plugins" 50b
}

func ExampleDirRoot() {
	root, err := fileid.DirRoot("docs", "testdata/corpus")
	if err != nil {
		log.Fatal(err)
	}
	reg, err := fileid.New(context.Background(), []fileid.Root{root}, fileid.Options{})
	if err != nil {
		log.Fatal(err)
	}
	for _, f := range reg.Files() {
		fmt.Println(f.FileID, f.Filename, "—", f.Title)
	}
	// Output:
	// f1 CHANGELOG.markdown — Changelog
	// f2 guides/configuration.md — Configuration
	// f3 guides/install.md — Installing Widget
	// f4 README.md — Widget Service Documentation
	// f5 reference/api.md — api.md
	// f6 reference/faq.mdx — Frequently asked questions
}

func ExampleRegistry_TableOfContents() {
	reg, _ := fileid.New(context.Background(), docs(), fileid.Options{})
	toc, err := reg.TableOfContents("f1", fileid.TOCOptions{})
	if err != nil {
		log.Fatal(err)
	}
	for _, e := range toc.Entries {
		fmt.Printf("%-4s line %2d  %s\n", e.ID, e.Line, e.Title)
	}
	// Output:
	// 0    line  4  (text before the first heading)
	// 1    line  6  Install
	// 1/1  line 13  Linux
	// 2    line 17  Configure
}

func ExampleRegistry_ReadSections() {
	reg, _ := fileid.New(context.Background(), docs(), fileid.Options{})
	res, err := reg.ReadSections("f1", []string{"1/1", "9"}, fileid.ReadOptions{})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("%q\n", res.Sections[0].Content)
	fmt.Println(res.Errors[0].Code, res.Errors[0].Message)
	// Output:
	// "## Linux\n\nUse the package.\n\n"
	// SECTION_NOT_FOUND the file has no section with this ID; valid top-level IDs are 0, 1, 2 (call table_of_contents for the full list, including subsections like 1/2)
}

func ExampleRegistry_Search() {
	reg, _ := fileid.New(context.Background(), docs(), fileid.Options{})
	res, err := reg.Search(context.Background(), fileid.SearchRequest{Query: "install", CaseInsensitive: true})
	if err != nil {
		log.Fatal(err)
	}
	for _, fm := range res.Results {
		for _, m := range fm.Matches {
			fmt.Printf("%s %s line %d, section %s (%s): %s\n", fm.FileID, fm.Filename, m.Line, m.SectionID, m.Heading, m.Text)
		}
	}
	// Output:
	// f1 guide.md line 6, section 1 (Install): # Install
	// f1 guide.md line 10, section 1 (Install): go install example.com/tool@latest
	// f3 README.md line 4, section 1 (Plugins): Install plugins with `tool add`.
}

func ExampleRegistry_File() {
	reg, _ := fileid.New(context.Background(), docs(), fileid.Options{})
	f, err := reg.File("f2")
	fmt.Println(f.SourceDirectory, f.Filename, err)

	_, err = reg.File("f9")
	fmt.Println(errors.Is(err, fileid.ErrFileIDNotFound), agentfiles.ErrorCode(err).Kind())
	fmt.Println(err)
	// Output:
	// /primary README.md <nil>
	// true not found
	// FILE_ID_NOT_FOUND: no file has this ID; valid IDs are f1 to f3; call list_documentation_files to see the valid file IDs (f9)
}

func ExampleParseID() {
	n, err := fileid.ParseID("f12")
	fmt.Println(n, err)
	_, err = fileid.ParseID("f012")
	fmt.Println(err)
	// Output:
	// 12 <nil>
	// INVALID_FILE_ID: file IDs look like f1, f2, f3 (the number has no leading zero and starts at 1); call list_documentation_files to see the valid file IDs (f012)
}
